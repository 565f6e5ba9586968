import net from 'node:net';
import { parseHead } from './http-head';

/**
 * A raw HTTP/1.1 client for the fuzz suite: the request line, header bytes and body go on the
 * wire exactly as generated (supertest/superagent would normalize or percent-encode them).
 */
export interface RawRequest {
  method: string;
  /** The request-target, as bytes or as an ASCII string sent as is. */
  target: string | Buffer;
  /** Header lines in order; values may be Buffers (e.g. UTF-8 or latin1 bytes). */
  headers?: [string, string | Buffer][];
  body?: string | Buffer;
  /** Set to false to omit the Content-Length header that is otherwise added when there is a body. */
  contentLength?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Thrown when the server does not answer within the time limit: a hang is a failure. */
export class RawTimeout extends Error {}

function parseResponse(raw: Buffer): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`incomplete HTTP response: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const { status, headers } = parseHead(raw.subarray(0, split));
  let body = raw.subarray(split + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const chunks: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at);
      const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!size) break;
      chunks.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(chunks);
  } else if (headers['content-length'] !== undefined) {
    body = body.subarray(0, Number(headers['content-length']));
  }
  return { status, headers, body: body.toString('utf8') };
}

export function rawRequest(port: number, request: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const lines: Buffer[] = [
    Buffer.from(`${request.method} `, 'latin1'),
    Buffer.isBuffer(request.target) ? request.target : Buffer.from(request.target, 'latin1'),
    Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n', 'latin1'),
  ];
  for (const [name, value] of request.headers ?? []) {
    lines.push(Buffer.from(`${name}: `, 'latin1'), Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'), Buffer.from('\r\n'));
  }
  if (body !== undefined && request.contentLength !== false) lines.push(Buffer.from(`Content-Length: ${body.length}\r\n`));
  lines.push(Buffer.from('\r\n'));
  if (body !== undefined) lines.push(body);
  const payload = Buffer.concat(lines);

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(payload));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new RawTimeout(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      socket.end();
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
  });
}
