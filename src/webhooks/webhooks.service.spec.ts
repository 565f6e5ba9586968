import { describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { AuditTrail } from '../audit/audit-trail';
import { PartnerKeysService } from '../auth/partner-keys.service';
import type { AdminActor } from '../auth/reviewers.service';
import { webhooksConfig } from '../config/configuration';
import { WebhookFanout } from './webhook-fanout';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

const ACTOR: AdminActor = { id: null, name: 'master', role: 'admin' };
type Audited = { result: unknown; audit: { action: string; details: Record<string, unknown> } };

/** The service with its partner checks, repository and fan-out faked; the audit trail runs the write and keeps what it recorded. */
async function serviceWith(repository: Record<string, unknown>) {
  const recorded: Audited['audit'][] = [];
  const audit = {
    record: async (_actor: AdminActor, write: (tx: object) => Promise<Audited>) => {
      const { result, audit: event } = await write({});
      recorded.push(event);
      return result;
    },
  };
  const partners = { requireSource: jest.fn(async () => undefined), requirePartner: jest.fn(async () => ({ id: '1' })) };
  const fanout = { redeliveriesQueued: jest.fn() };
  const module = await Test.createTestingModule({
    providers: [
      WebhooksService,
      { provide: webhooksConfig.KEY, useValue: { allowPrivateUrls: false } },
      { provide: AuditTrail, useValue: audit },
      { provide: PartnerKeysService, useValue: partners },
      { provide: WebhooksRepository, useValue: repository },
      { provide: WebhookFanout, useValue: fanout },
    ],
  }).compile();
  return { webhooks: module.get(WebhooksService), recorded, fanout };
}

describe('WebhooksService', () => {
  it('registers a public https URL: its secret shown once, the audit trail naming the URL without its query', async () => {
    const repository = { insert: jest.fn(async () => ({ id: '3', count: 1, created_at: '2026-12-05T00:00:00Z' })) };
    const { webhooks, recorded } = await serviceWith(repository);
    const created = (await webhooks.create(ACTOR, 'acme', 'https://93.184.215.14/hook?token=abc', null)) as Record<string, unknown>;
    expect(created).toMatchObject({ webhook_id: 3, url: 'https://93.184.215.14/hook?token=abc', secret: expect.stringMatching(/^whsec_/) });
    expect(recorded).toEqual([{ action: 'webhook.created', target: 'partner:acme', details: { webhook_id: 3, url: 'https://93.184.215.14/hook', description: null } }]);
  });

  it('refuses a URL its policy refuses (4000, saying why) before any write, and a partner\'s 21st webhook', async () => {
    const repository = { insert: jest.fn(async () => ({ id: '21', count: 21, created_at: '2026-12-05T00:00:00Z' })) };
    const { webhooks } = await serviceWith(repository);
    await expect(webhooks.create(ACTOR, 'acme', 'https://127.0.0.1/hook', null)).rejects.toMatchObject({ code: 4000, detail: expect.stringContaining('loopback') });
    expect(repository.insert).not.toHaveBeenCalled();
    await expect(webhooks.create(ACTOR, 'acme', 'https://93.184.215.14/hook', null)).rejects.toMatchObject({ code: 4000, detail: 'a partner has at most 20 webhooks' });
  });

  it("answers 4046 for a webhook that is not the partner's, and wakes the fan-out once a redelivery is queued", async () => {
    const repository = { lock: jest.fn(async (_tx: unknown, _source: string, id: string) => id === '3'), redeliver: jest.fn(async () => 4), countRedeliverable: jest.fn(async () => undefined) };
    const { webhooks, fanout } = await serviceWith(repository);
    await expect(webhooks.redeliver(ACTOR, 'acme', '9', 0)).rejects.toMatchObject({ code: 4046 });
    await expect(webhooks.redeliverable('acme', '9', 0)).rejects.toMatchObject({ code: 4046 });
    expect(fanout.redeliveriesQueued).not.toHaveBeenCalled();
    await expect(webhooks.redeliver(ACTOR, 'acme', '3', 0)).resolves.toEqual({ queued: 4 });
    expect(fanout.redeliveriesQueued).toHaveBeenCalledTimes(1);
  });
});
