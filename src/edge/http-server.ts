import { ExpressAdapter } from '@nestjs/platform-express';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response } from 'express';
import { attachRequestContext } from '../common/request-context';
import type { HttpConfig } from '../config/configuration';
import { ReadGate } from './read-gate';

/** Header fields a request may have (no client of this service sends near as many). */
export const MAX_HEADERS_COUNT = 100;

/** See createServer's highWaterMark below. */
const ANSWERS_QUEUED_BEFORE_PAUSE = 1;

/** A connection that neither sends nor reads anything for this long is closed (a client that stopped reading its answers). */
const IDLE_SOCKET_TIMEOUT_MS = 60_000;

// Before closing idle connections on shutdown: a keep-alive client may have sent a request before it could know, and
// closing its "idle" connection at once would cut that request off unanswered.
const DRAIN_SETTLE_MS = 500;

// Node's defaults give 300 s to send a request, checked every 30 s; here HTTP_HEADERS_TIMEOUT_MS and
// HTTP_REQUEST_TIMEOUT_MS hold within a second. Node reads the checking interval only when the server is created,
// hence a server of our own.
export class ExpressAdapterWithDeadlines extends ExpressAdapter {
  private admits: (socket: Socket) => boolean = (socket) => !socket.destroyed;
  private closeBusyConnections: () => void = () => undefined;
  private stopAnnounced = false;
  private draining = false;
  private readonly onStop: (() => void)[] = [];

  constructor(private readonly config: HttpConfig) {
    super();
  }

  /** Who decides, before Express, whether a request Node parsed is worked on at all (ConnectionLimits). */
  admitRequestsBy(admits: (socket: Socket) => boolean): void {
    this.admits = admits;
  }

  /** Who, on shutdown, closes each busy connection after its answers (ConnectionLimits, which knows them). */
  closeBusyConnectionsBy(close: () => void): void {
    this.closeBusyConnections = close;
  }

  // Every answer from now on closes its connection, so keep-alive clients leave; for DRAIN_SETTLE_MS requests already
  // sent on idle connections are still answered, then idle connections close. The caller then closes the server.
  async drain(graceMs: number): Promise<void> {
    this.announceStop();
    this.draining = true;
    this.closeBusyConnections();
    await sleep(Math.min(DRAIN_SETTLE_MS, graceMs));
    const server = this.getHttpServer() as Server;
    server.closeIdleConnections();
    setInterval(() => server.closeIdleConnections(), 100).unref();
  }

  /** From now on readiness says the instance is stopping, so that a load balancer sends it no more; waiting answers are given. */
  announceStop(): void {
    if (this.stopAnnounced) return;
    this.stopAnnounced = true;
    for (const callback of this.onStop) callback();
  }

  /** Who answers what it holds (long polls) once the instance stops. */
  whenStopping(callback: () => void): void {
    this.onStop.push(callback);
  }

  /** Shutting down (announceStop or drain was called). */
  get stopping(): boolean {
    return this.stopAnnounced;
  }

  /** Past the shutdown's grace: every connection still open is closed, its requests cut off. */
  closeAllConnections(): void {
    (this.getHttpServer() as Server).closeAllConnections();
  }

  override initHttpServer(): void {
    const requestTimeout = this.config.requestTimeoutMs;
    const app = this.getInstance<(req: IncomingMessage, res: ServerResponse) => void>();
    const gate = new ReadGate();
    const listener = (req: IncomingMessage, res: ServerResponse) => {
      gate.requestParsed(req.socket);
      if (!this.admits(req.socket)) return;
      if (this.draining) res.setHeader('Connection', 'close');
      attachRequestContext(req as Request, res as unknown as Response);
      app(req, res);
    };
    const server = createServer(
      {
        requestTimeout,
        headersTimeout: Math.min(this.config.headersTimeoutMs, requestTimeout),
        keepAliveTimeout: this.config.keepAliveTimeoutMs,
        connectionsCheckingInterval: 1000,
        // Answered 4000 in the envelope instead (RequestChecksMiddleware).
        requireHostHeader: false,
        // Node stops reading a connection while answers queued on it are not yet written, once
        // they pass this: with one byte, any answer waiting behind another (a client
        // pipelining past what it reads) stops the reading until the answers before it are taken.
        highWaterMark: ANSWERS_QUEUED_BEFORE_PAUSE,
      },
      listener,
    );
    // A request whose Expect is not 100-continue: Node would answer it an empty 417 itself. It
    // goes through the pipeline instead, which answers it 4000 (RequestChecksMiddleware).
    server.on('checkExpectation', listener);
    // A request with Expect: 100-continue: Node would send 100 Continue at once, inviting the
    // body of a request the guards may refuse. It is sent once they let it in (JsonBodyInterceptor).
    server.on('checkContinue', listener);
    server.setTimeout(IDLE_SOCKET_TIMEOUT_MS);
    // Refused by the parser as it reads them (4130, ProtocolErrors): Node's default of 2,000 tiny header lines lets
    // each request hold far more memory than any client needs.
    server.maxHeadersCount = MAX_HEADERS_COUNT;
    gate.watch(server);
    this.setHttpServer(server);
  }
}
