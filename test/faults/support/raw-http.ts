import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseHead } from '../../support/http-head';

/** One HTTP answer read off a raw connection. */
export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Reads every whole answer at the start of `data` (the server always sends Content-Length); returns what is left. */
function takeAnswers(data: Buffer, answers: RawAnswer[]): Buffer {
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n');
    if (headEnd === -1) return data;
    const { status, headers } = parseHead(data.subarray(0, headEnd));
    const length = Number(headers['content-length'] ?? 0);
    if (data.length < headEnd + 4 + length) return data;
    const text = data.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    answers.push({ status, headers, body });
    data = data.subarray(headEnd + 4 + length);
  }
}

/**
 * A TCP connection to the server that writes raw bytes and reads answers only when told to:
 * the pipelining client that never reads, the slow uploader, the malformed request.
 */
export class RawConnection {
  readonly answers: RawAnswer[] = [];
  /** performance.now() when it connected, and once the server closed it (or reset it: `error`). */
  readonly openedAt = performance.now();
  closedAt: number | null = null;
  error?: string;
  private pending: Buffer = Buffer.alloc(0);
  private reading = false;

  private constructor(readonly socket: Socket) {
    socket.pause();
    socket.on('error', (error: NodeJS.ErrnoException) => (this.error ??= error.code ?? error.message));
    socket.on('close', () => (this.closedAt = performance.now()));
  }

  /** Opens a connection from `localAddress` (another client IP on loopback); rejects after `timeoutMs`. */
  static open(port: number, localAddress = '127.0.0.1', timeoutMs = 5_000): Promise<RawConnection> {
    return new Promise((resolveOpen, rejectOpen) => {
      const socket = connect({ port, host: '127.0.0.1', localAddress });
      const timer = setTimeout(() => {
        socket.destroy();
        rejectOpen(new Error(`no connection within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolveOpen(new RawConnection(socket));
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        rejectOpen(error);
      });
    });
  }

  get open(): boolean {
    return this.closedAt === null;
  }

  /** Writes without waiting; false once the socket is closed. */
  write(bytes: string | Buffer): boolean {
    if (this.socket.destroyed) return false;
    this.socket.write(bytes);
    return true;
  }

  /**
   * Writes `count` requests back to back without reading a byte, as fast as the server takes
   * them, and stops when it stops taking them (until `deadline`, a performance.now() time).
   * Resolves to how many were written.
   */
  async pipeline(request: (index: number) => string, count: number, deadline: number): Promise<number> {
    let written = 0;
    while (written < count && !this.socket.destroyed && performance.now() < deadline) {
      if (this.socket.write(request(written++))) continue;
      await Promise.race([new Promise((resolveDrain) => this.socket.once('drain', resolveDrain)), sleep(Math.max(0, deadline - performance.now()))]);
    }
    return written;
  }

  /** Starts reading: answers are parsed into `answers` as they arrive, and `onAnswers` told. */
  startReading(onAnswers?: () => void): void {
    if (this.reading) return;
    this.reading = true;
    this.socket.on('data', (chunk: Buffer) => {
      this.pending = takeAnswers(Buffer.concat([this.pending, chunk]), this.answers);
      onAnswers?.();
    });
    this.socket.resume();
  }

  /**
   * Keeps `window` requests in progress on the connection, reading every answer and sending the
   * next request at once, until `deadline`; then waits (at most 5 s) for the last answers.
   * Resolves to how many were sent.
   */
  async keepInProgress(request: () => string, window: number, deadline: number): Promise<number> {
    let sent = 0;
    const topUp = () => {
      while (sent - this.answers.length < window && performance.now() < deadline && this.write(request())) sent++;
    };
    this.startReading(topUp);
    topUp();
    while (this.open && performance.now() < deadline) await sleep(20);
    await this.readAnswers(sent, 5_000);
    return sent;
  }

  /** Reads until `count` answers have arrived, the connection is closed, or `timeoutMs` has passed. */
  async readAnswers(count: number, timeoutMs: number): Promise<RawAnswer[]> {
    this.startReading();
    const deadline = performance.now() + timeoutMs;
    while (this.answers.length < count && this.open && performance.now() < deadline) await sleep(10);
    return this.answers;
  }

  /** Reads until the server closes the connection or `timeoutMs` has passed; resolves to whether it closed. */
  async readUntilClosed(timeoutMs: number): Promise<boolean> {
    this.startReading();
    const deadline = performance.now() + timeoutMs;
    while (this.open && performance.now() < deadline) await sleep(10);
    return !this.open;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Opens `count` connections from `localAddress`, 100 at a time. */
export async function openConnections(port: number, count: number, localAddress?: string): Promise<RawConnection[]> {
  const connections: RawConnection[] = [];
  try {
    while (connections.length < count) {
      const batch = Math.min(100, count - connections.length);
      connections.push(...(await Promise.all(Array.from({ length: batch }, () => RawConnection.open(port, localAddress)))));
    }
  } catch (error) {
    for (const connection of connections) connection.close();
    throw error;
  }
  return connections;
}

/** A request written raw: `body` as JSON with its Content-Length. */
export function rawRequest(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): string {
  const text = body === undefined ? '' : JSON.stringify(body);
  const all = body === undefined ? headers : { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
  const lines = Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${path} HTTP/1.1\r\nHost: oracle\r\n${lines.join('')}\r\n${text}`;
}
