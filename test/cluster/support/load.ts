import { HttpClient, type HttpResult } from '../../faults/support/http-client';
import { disputeBody, publicPath, type SeededMarket } from './markets';

export interface Sample extends HttpResult {
  kind: 'read' | 'filing';
  marketId: number;
  /** The instance that answered, as the balancer names it (x-cluster-instance). */
  instance?: string;
}

/** An answer of the partner API: HTTP 200 and the envelope, `data` with code 0 only. */
export function isEnvelope(sample: HttpResult): boolean {
  const body = sample.body as { code?: unknown; msg?: unknown; data?: unknown } | undefined;
  if (sample.status !== 200 || typeof body !== 'object' || body === null) return false;
  if (!Number.isInteger(body.code) || typeof body.msg !== 'string') return false;
  return body.code === 0 ? body.data !== undefined : body.data === undefined;
}

/** A failure message listing a few offending samples. */
export function explain(samples: Sample[], limit = 8): string {
  return samples
    .slice(0, limit)
    .map((x) => `${x.kind} market ${x.marketId} via ${x.instance ?? '?'} after ${x.ms.toFixed(0)} ms: ${x.status} ${x.error ?? JSON.stringify(x.body)}`)
    .join('\n');
}

/**
 * Public reads and dispute filings sent back to back through the balancer by `readers` and
 * `filers` clients until stop(); each filing is for a market of its own, so every one should
 * be filed (code 0) once.
 */
export class MixedLoad {
  readonly samples: Sample[] = [];
  private running = true;
  private readonly client: HttpClient;
  private readonly loops: Promise<void>[] = [];
  private nextFiling = 0;

  constructor(
    baseUrl: string,
    private readonly options: { readers: number; filers: number; reads: SeededMarket[]; filings: SeededMarket[]; apiKey: string },
  ) {
    this.client = new HttpClient(baseUrl);
    for (let r = 0; r < options.readers; r++) this.loops.push(this.readLoop(r));
    for (let f = 0; f < options.filers; f++) this.loops.push(this.fileLoop());
  }

  async stop(): Promise<Sample[]> {
    this.running = false;
    await Promise.all(this.loops);
    this.client.close();
    return this.samples;
  }

  of(kind: Sample['kind']): Sample[] {
    return this.samples.filter((x) => x.kind === kind);
  }

  private async readLoop(offset: number): Promise<void> {
    for (let i = offset; this.running; i += this.options.readers) {
      const market = this.options.reads[i % this.options.reads.length];
      this.record('read', market.id, await this.client.request('GET', publicPath(market.slug), { timeoutMs: 10_000 }));
    }
  }

  private async fileLoop(): Promise<void> {
    while (this.running && this.nextFiling < this.options.filings.length) {
      const market = this.options.filings[this.nextFiling++];
      const result = await this.client.request('POST', '/oracle/markets/dispute/submit', {
        body: disputeBody(market.id),
        headers: { 'x-api-key': this.options.apiKey },
        timeoutMs: 10_000,
      });
      this.record('filing', market.id, result);
    }
  }

  private record(kind: Sample['kind'], marketId: number, result: HttpResult): void {
    const instance = result.headers?.['x-cluster-instance'];
    this.samples.push({ ...result, kind, marketId, instance: typeof instance === 'string' ? instance : undefined });
  }
}

/** "reads 1520 x 0, 3 x 5030; filings ..." for the run's log. */
export function countCodes(samples: Sample[]): string {
  const describe = (kind: Sample['kind']) => {
    const counts = new Map<string, number>();
    for (const x of samples.filter((sample) => sample.kind === kind)) {
      const key = String(x.body?.code ?? x.error ?? x.status);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].map(([code, count]) => `${count} x ${code}`).join(', ') || 'none';
  };
  return `reads ${describe('read')}; filings ${describe('filing')}`;
}
