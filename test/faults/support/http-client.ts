import { Agent, request as httpRequest } from 'node:http';

export interface HttpResult {
  /** HTTP status; 0 when no response arrived (see `error`). */
  status: number;
  /** Parsed JSON body (or the raw text when it is not JSON); undefined without a response. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Response headers (lower-case names); empty without a response. */
  headers?: Record<string, string | string[] | undefined>;
  /** Network error code (ECONNREFUSED, ECONNRESET, ..., or TIMEOUT). */
  error?: string;
  /** The request went out on a kept-alive connection that had served an earlier request. */
  reusedSocket?: boolean;
  /** performance.now() at send and at the end (response read or failure). */
  startedAt: number;
  endedAt: number;
  ms: number;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Give up (error TIMEOUT) after this long; generous by default so hangs are measured, not hidden. */
  timeoutMs?: number;
  /** A new TCP connection instead of the keep-alive pool. */
  freshConnection?: boolean;
}

/**
 * A small HTTP client on node:http with one keep-alive agent. It never rejects: failures are
 * results (status 0 with an error code), each with its measured latency.
 */
export class HttpClient {
  // Idle sockets are dropped after 1 s, well before the server's 5 s keep-alive timeout: reusing
  // a socket the server is closing at that very moment fails with ECONNRESET, which would pass
  // for a fault of the server.
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 1_000 });

  /** `localAddress`: the client's own address (127.0.0.2, ... on loopback: another client IP to the server). */
  constructor(
    readonly baseUrl: string,
    private readonly localAddress?: string,
  ) {}

  request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult> {
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const startedAt = performance.now();
    return new Promise((resolveResult) => {
      let settled = false;
      const finish = (result: Omit<HttpResult, 'startedAt' | 'endedAt' | 'ms'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const endedAt = performance.now();
        resolveResult({ ...result, reusedSocket: req.reusedSocket, startedAt, endedAt, ms: endedAt - startedAt });
      };
      const req = httpRequest(
        `${this.baseUrl}${path}`,
        {
          method,
          agent: options.freshConnection ? false : this.agent,
          localAddress: this.localAddress,
          headers: {
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
            ...options.headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error: NodeJS.ErrnoException) => finish({ status: 0, body: undefined, error: error.code ?? error.message }));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              // not JSON: keep the text
            }
            finish({ status: res.statusCode ?? 0, body, headers: res.headers });
          });
          // The connection died before the body was complete.
          res.on('close', () => finish({ status: 0, body: undefined, error: 'ABORTED' }));
        },
      );
      const timer = setTimeout(() => {
        finish({ status: 0, body: undefined, error: 'TIMEOUT' });
        req.destroy();
      }, options.timeoutMs ?? 15_000);
      req.on('error', (error: NodeJS.ErrnoException) => finish({ status: 0, body: undefined, error: error.code ?? error.message }));
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Runs the tasks with at most `concurrency` in flight; results in task order. */
export async function runPool<T>(tasks: (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  return results;
}
