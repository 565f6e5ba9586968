import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { PinoLogger } from 'nestjs-pino';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import onFinished from 'on-finished';
import { MetricsService } from '../observability/metrics.service';
import { errorEnvelope } from '../common/envelope';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { requestIdOf } from '../common/request-context';
import { ConnectionLimits } from './connections';

/** How Node's HTTP parser says what was wrong with a request it rejected. */
function rejectionOf(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return new ApiError(ErrorCatalogue.PAYLOAD_TOO_LARGE, 'request headers too large');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError(ErrorCatalogue.INVALID_REQUEST, 'the request did not arrive in time');
  return new ApiError(ErrorCatalogue.INVALID_REQUEST, 'the request could not be parsed as HTTP');
}

// What Node's parser rejects (malformed, headers over 16 KiB, broken chunking, past the deadlines, CONNECT) is answered
// in the envelope (HTTP 200, Connection: close) where the connection can still carry it, not Node's empty 400/408/431.
// Logged on a line of its own, route "unparsed".
@Injectable()
export class ProtocolErrors implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: MetricsService,
    private readonly connections: ConnectionLimits,
    private readonly logger: PinoLogger,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
      if (error.code === 'ECONNRESET') return void socket.destroy();
      this.answer(rejectionOf(error.code), socket, `rejected by the HTTP parser: ${error.code ?? error.message}`);
    });
    // CONNECT asks for a tunnel, which this service never opens; Node would close the connection unanswered.
    server.on('connect', (_request: IncomingMessage, socket: Socket) =>
      this.answer(new ApiError(ErrorCatalogue.INVALID_REQUEST, 'CONNECT is not supported'), socket, 'CONNECT refused'),
    );
  }

  private answer(rejection: ApiError, socket: Socket, cause: string): void {
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
      socket.end(this.rawAnswer(rejection, socket, cause));
      return;
    }
    // What was rejected came after the requests in progress, whole: their answers first, then
    // the rejection, and the connection closes.
    if (last.req.complete) {
      socket.pause();
      onFinished(last, () => (socket.writable ? socket.end(this.rawAnswer(rejection, socket, cause)) : socket.destroy()));
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

  /** The rejection's answer, its request id logged with it. */
  private rawAnswer(rejection: ApiError, socket: Socket, cause: string): string {
    const id = requestIdOf(undefined);
    const line = { reqId: id, req: { id, remoteAddress: socket.remoteAddress }, route: 'unparsed', code: rejection.code, res: { statusCode: 200 } };
    this.logger.logger.info(line, cause);
    const body = JSON.stringify(errorEnvelope(rejection));
    return [
      'HTTP/1.1 200 OK',
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${id}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n');
  }
}
