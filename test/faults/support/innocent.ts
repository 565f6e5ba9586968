import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient, type HttpResult } from './http-client';
import { disputeBody, type SeededMarket } from './seed';
import type { ServerProcess } from './server-process';

export interface OrdinaryRequest {
  label: string;
  method: string;
  /** A function: a new path each time (an uncached read). */
  path: string | (() => string);
  body?: unknown;
  headers?: Record<string, string>;
  /** The envelope code it is normally answered. */
  code: number;
}

/** A read of a record nobody has: a database query each time. */
export const uncachedRead = () => `/oracle/markets/public?slug=nowhere-${randomBytes(6).toString('hex')}&source=hostile`;

/** What an ordinary client sends: a cached read, an uncached one and a dispute answered 4091 (the last two use the pool). */
export function ordinaryRequests(cached: SeededMarket, disputed: SeededMarket): OrdinaryRequest[] {
  return [
    { label: 'cached read', method: 'GET', path: `/oracle/markets/public?slug=${cached.slug}&source=${cached.source}`, code: 0 },
    { label: 'dispute', method: 'POST', path: '/oracle/markets/dispute/submit', headers: { 'x-api-key': disputed.apiKey }, body: disputeBody(disputed.id, 1), code: 4091 },
    { label: 'uncached read', method: 'GET', path: uncachedRead, code: 0 },
  ];
}

export interface InnocentSample {
  request: OrdinaryRequest;
  result: HttpResult;
}

/**
 * A well-behaved client on connections of its own, from an address of its own (so no per-IP
 * budget of an attacker is its), sending ordinary requests in turn and timing each.
 */
export class InnocentClient {
  private readonly http: HttpClient;
  private samples: InnocentSample[] = [];
  private loop: Promise<void> | undefined;
  private running = false;
  private next = 0;

  constructor(
    server: ServerProcess,
    private readonly requests: OrdinaryRequest[],
    address = '127.0.0.2',
  ) {
    this.http = new HttpClient(server.http.baseUrl, address);
  }

  private async send(): Promise<InnocentSample> {
    const request = this.requests[this.next++ % this.requests.length];
    const path = typeof request.path === 'string' ? request.path : request.path();
    const result = await this.http.request(request.method, path, { body: request.body, headers: request.headers, timeoutMs: 10_000 });
    return { request, result };
  }

  /** `count` requests one after another: its normal latency. */
  async measure(count: number): Promise<InnocentSample[]> {
    const samples: InnocentSample[] = [];
    for (let i = 0; i < count; i++) samples.push(await this.send());
    return samples;
  }

  /** Keeps sending, `pauseMs` apart, until stop(). */
  start(pauseMs = 10): void {
    this.samples = [];
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        this.samples.push(await this.send());
        await sleep(pauseMs);
      }
    })();
  }

  async stop(): Promise<InnocentSample[]> {
    this.running = false;
    await this.loop;
    return this.samples;
  }

  close(): void {
    this.running = false;
    this.http.close();
  }
}
