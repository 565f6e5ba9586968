import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
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
 * line or header, headers over 16 KiB, a request that does not arrive within the server's
 * deadlines) are answered in the envelope (HTTP 200, 4000 or 4130, Connection: close) where the
 * connection can still carry an answer, instead of Node's empty 400/408/431.
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
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => this.answer(error, socket));
  }

  private answer(error: NodeJS.ErrnoException, socket: Socket): void {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const rejection = rejectionOf(error.code);
    this.metrics.protocolErrors.inc({ code: String(rejection.code) });
    this.logger.debug(`rejected by the HTTP parser: ${error.code ?? error.message}`);
    const owed = this.connections.answersOwedOn(socket);
    if (owed.length === 0) {
      socket.end(rawAnswer(rejection));
      return;
    }
    // A request whose body stopped arriving was handed to the application: answer it there,
    // through the pipeline. With other answers still owed before it, the order of answers on the
    // connection cannot be kept: close it.
    const [waiting] = owed;
    if (owed.length === 1 && error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && !waiting.headersSent) {
      waiting.setHeader('Connection', 'close');
      waiting.locals.envelopeCode = rejection.code;
      waiting.status(200).json(errorEnvelope(rejection));
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
