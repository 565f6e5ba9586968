import type { TestApp } from '../../support/test-app';

export interface Resolution {
  verdict: string;
  confidence: string;
  reasoning: string;
  proofs: { chain: string; tx_hash: string }[];
  resolved_at?: string;
}

export interface DisputeFields {
  submitter_id: string;
  submitter_name: string;
  submitter_selection: string;
  reason_text: string;
  submitted_at?: string;
}

/** Test data written through the service's own API, as an admin and a partner would. */
export class Seed {
  constructor(
    private readonly t: TestApp,
    private readonly masterKey: string,
  ) {}

  /** An admin call with the master key; its `data`, or a thrown error naming the envelope. */
  async admin<T>(method: 'get' | 'post' | 'delete', path: string, body?: object): Promise<T> {
    const call = this.t.http[method](path).set('authorization', `Bearer ${this.masterKey}`);
    const response = await (body ? call.send(body) : call);
    if (response.body.code !== 0) throw new Error(`${method} ${path}: ${JSON.stringify(response.body)}`);
    return response.body.data as T;
  }

  async partner(source: string, name: string): Promise<string> {
    return (await this.admin<{ api_key: string }>('post', '/admin/partners', { source, name })).api_key;
  }

  async reviewer(name: string, role: 'admin' | 'reviewer'): Promise<string> {
    return (await this.admin<{ api_key: string }>('post', '/admin/reviewers', { name, role })).api_key;
  }

  async resolvedMarket(source: string, slug: string, resolution: Resolution): Promise<number> {
    const { id } = await this.admin<{ id: number }>('post', '/admin/markets', { source, slug });
    await this.admin('post', `/admin/markets/${id}/resolve`, resolution);
    return id;
  }

  async dispute(partnerKey: string, marketId: number, fields: DisputeFields): Promise<number> {
    const response = await this.t.http.post('/oracle/markets/dispute/submit').set('x-api-key', partnerKey).send({ market_id: marketId, ...fields });
    if (response.body.code !== 0) throw new Error(`dispute on ${marketId}: ${JSON.stringify(response.body)}`);
    return response.body.data.dispute_id as number;
  }

  async publicRecord(source: string, slug: string) {
    const response = await this.t.http.get('/oracle/markets/public').query({ source, slug });
    return response.body.data.markets[0];
  }
}
