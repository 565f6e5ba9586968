import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import onFinished from 'on-finished';
import { MetricsService } from '../../observability/metrics.service';
import { ApiError, ErrorCatalogue, errorEnvelope } from '../error-catalogue';
import { requestIdOf } from '../request-context.middleware';
import { ConnectionLimits } from './connections';

/** How Node's HTTP parser says what was wrong with a request it rejected. */
function rejectionOf(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return new ApiError(ErrorCatalogue.PAYLOAD_TOO_LARGE, 'request headers too large');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError(ErrorCatalogue.INVALID_REQUEST, 'the request did not arrive in time');
  return new ApiError(ErrorCatalogue.INVALID_REQUEST, 'the request could not be parsed as HTTP');
}

/**
 * Requests Node's HTTP parser rejects before the application sees them (a malformed request
 * line or header, headers over 16 KiB, a broken chunked body, a request that does not arrive
 * within the server's deadlines, CONNECT) are answered in the envelope (HTTP 200, 4000 or 4130,
 * Connection: close) where the connection can still carry an answer, instead of Node's empty
 * 400/408/431 or a closed connection.
 */
@Injectable()
export class ProtocolErrors implements OnApplicationBootstrap {
  private readonly logger = new Logger('ProtocolErrors');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: MetricsService,
    private readonly connections: ConnectionLimits,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
      if (error.code === 'ECONNRESET') return void socket.destroy();
      this.logger.debug(`rejected by the HTTP parser: ${error.code ?? error.message}`);
      this.answer(rejectionOf(error.code), socket);
    });
    // CONNECT asks for a tunnel, which this service never opens; Node would close the connection unanswered.
    server.on('connect', (_request: IncomingMessage, socket: Socket) =>
      this.answer(new ApiError(ErrorCatalogue.INVALID_REQUEST, 'CONNECT is not supported'), socket),
    );
  }

  private answer(rejection: ApiError, socket: Socket): void {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    this.metrics.protocolErrors.inc({ code: String(rejection.code) });
    const owed = this.connections.answersOwedOn(socket);
    const last = owed.at(-1);
    if (!last) {
      // The body of a request answered before it all arrived (refused by a guard, or not read)
      // broke off or stopped arriving: that request has its answer; the connection closes.
      if (this.connections.answeredBeforeItsBody(socket)) {
        socket.destroy();
        return;
      }
      socket.end(rawAnswer(rejection));
      return;
    }
    // What was rejected came after the requests in progress, whole: their answers first, then
    // the rejection, and the connection closes.
    if (last.req.complete) {
      socket.pause();
      onFinished(last, () => (socket.writable ? socket.end(rawAnswer(rejection)) : socket.destroy()));
      return;
    }
    // The body of the request in progress broke off or stopped arriving: answer it there,
    // through the pipeline. With other answers still owed before it, the order of answers on the
    // connection cannot be kept: close it.
    if (owed.length === 1 && !last.headersSent) {
      last.setHeader('Connection', 'close');
      last.locals.envelopeCode = rejection.code;
      last.status(200).json(errorEnvelope(rejection));
      return;
    }
    socket.destroy();
  }
}

function rawAnswer(rejection: ApiError): string {
  const body = JSON.stringify(errorEnvelope(rejection));
  return [
    'HTTP/1.1 200 OK',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestIdOf(undefined)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
