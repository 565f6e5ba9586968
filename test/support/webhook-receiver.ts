import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a receiver got: its Standard Webhooks headers, its body as sent, when it arrived. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** What a receiver answers a request with (a status), or never answers (hang). */
export type Answer = number | 'hang';

/**
 * A webhook endpoint on loopback: it records every request and answers each as `answer` says
 * (200 by default). Hanging requests are ended when it closes.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  answer: (request: Received) => Answer = () => 200;
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const got: Received = { path: request.url ?? '/', headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() };
      this.received.push(got);
      for (const waiter of [...this.waiters]) waiter();
      const answer = this.answer(got);
      if (answer !== 'hang') response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  private readonly waiters = new Set<() => void>();

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Resolves once `count` requests match `filter`, else fails after `timeoutMs`. */
  async waitFor(count: number, filter: (request: Received) => boolean = () => true, timeoutMs = 15_000): Promise<Received[]> {
    const matching = () => this.received.filter(filter);
    await this.until(() => matching().length >= count, timeoutMs, () => `${matching().length} of ${count} webhook requests arrived within ${timeoutMs} ms`);
    return matching();
  }

  /** Resolves once `condition` holds (checked as requests arrive), else fails after `timeoutMs` with `failure()`. */
  until(condition: () => boolean, timeoutMs: number, failure = () => `the condition did not hold within ${timeoutMs} ms`): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(failure()));
      }, timeoutMs);
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
