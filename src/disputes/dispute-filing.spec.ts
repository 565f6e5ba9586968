import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { PartnerKeysService } from '../auth/partner-keys.service';
import { ChangeLog } from '../changes/change-log';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { Sql, type Transaction } from '../database/sql';
import type { MarketStatus } from '../markets/market-state';
import { MarketsService } from '../markets/markets.service';
import { MetricsService } from '../observability/metrics.service';
import { DisputeFiling } from './dispute-filing';
import { DisputesRepository } from './disputes.repository';
import type { IdempotencyRecord } from './idempotency-record.entity';

const partner = { partnerId: '1', source: 'acme', keyId: '7' };
const body = { market_id: 42, submitter_id: 'u1', submitter_name: 'Ann', submitter_selection: 'NO', reason_text: 'Corrected.' };
const market = (status: MarketStatus, source = 'acme') => ({ id: '42', source, slug: 'btc-100k', status, verdict: 'YES' });
const TX = {} as Transaction;

/** DisputeFiling with its collaborators overridden: the rules are checked in the order the contract gives, in one transaction. */
async function filingWith(state: { market?: ReturnType<typeof market> | null; keyHeld?: boolean; idempotencyFree?: boolean; remembered?: Partial<IdempotencyRecord> | null; inserted?: string | null }) {
  const calls: string[] = [];
  const note = <T>(name: string, value: T) => jest.fn(async (..._args: unknown[]) => (calls.push(name), value));
  const keyHeld = state.keyHeld ?? true;
  const repository = {
    // The market's status changes in the insert's own statement, and only for a dispute filed.
    insert: jest.fn(async (_tx: unknown, _dispute: unknown, andThen: (ids: unknown) => unknown) => {
      calls.push('insert');
      const inserted = state.inserted === undefined ? '9' : state.inserted;
      if (inserted !== null) andThen('ids');
      return inserted;
    }),
    holdIdempotencyKey: note('holdIdempotencyKey', { passed: keyHeld, held: keyHeld && (state.idempotencyFree ?? true) }),
    remembered: note('remembered', state.remembered ?? undefined),
    remember: note('remember', undefined),
  };
  const markets = {
    lockMarketAfter: jest.fn(async (_tx: unknown, _id: unknown, guard: unknown) => {
      calls.push('lockMarket');
      const passed = guard === 'keyHold' ? keyHeld : true;
      return { passed, market: passed ? (state.market ?? undefined) : undefined };
    }),
    markDisputed: jest.fn(() => (calls.push('markDisputed'), 'UPDATE')),
    keyOf: note('keyOf', { source: 'acme', slug: 'btc-100k' }),
  };
  const changes = { append: note('append', '300'), written: note('written', undefined), acknowledge: note('acknowledge', undefined) };
  const module = await Test.createTestingModule({
    providers: [
      DisputeFiling,
      { provide: Sql, useValue: { transaction: async (work: (tx: Transaction) => Promise<unknown>) => work(TX) } },
      { provide: DisputesRepository, useValue: repository },
      { provide: PartnerKeysService, useValue: { keyHold: jest.fn(() => (calls.push('keyHold'), 'keyHold')) } },
      { provide: MarketsService, useValue: markets },
      { provide: ChangeLog, useValue: changes },
      { provide: MetricsService, useValue: { disputesFiled: { inc: () => undefined } } },
    ],
  }).compile();
  return { filing: module.get(DisputeFiling), calls, repository, changes };
}

const codeOf = (answer: { dispute_id: number } | ApiError) => (answer instanceof ApiError ? answer.code : 0);

describe('DisputeFiling', () => {
  let key: { key: string; requestHash: string };
  beforeEach(() => {
    key = { key: 'k1', requestHash: 'h1' };
  });

  it('files on a resolved market of the partner: the market locked once the key is held, the dispute inserted with the market disputed, its event appended', async () => {
    const { filing, calls, changes } = await filingWith({ market: market('resolved') });
    const { answer, replayed } = await filing.submit(partner, body);
    expect(answer).toEqual({ dispute_id: 9 });
    expect(replayed).toBe(false);
    expect(calls).toEqual(['keyHold', 'lockMarket', 'insert', 'markDisputed', 'append', 'written']);
    expect(changes.written).toHaveBeenCalledWith('acme', 'btc-100k', '300');
  });

  it.each([
    ['a revoked key', { keyHeld: false, market: market('resolved') }, 4011],
    ['a revoked key, whatever the market', { keyHeld: false, market: null }, 4011],
    ['no such market', { market: null }, 4040],
    ["another partner's market, whatever its state", { market: market('disputed', 'other') }, 4030],
    ['a market with its dispute', { market: market('disputed') }, 4091],
    ['a closed market', { market: market('closed') }, 4091],
    ['a market still monitored', { market: market('monitoring') }, 4090],
    ['a dispute the unique constraint refuses', { market: market('resolved'), inserted: null }, 4091],
  ])('refuses %s (%s), filing nothing', async (_case, state, code) => {
    const { filing, calls } = await filingWith(state);
    expect(codeOf((await filing.submit(partner, body)).answer)).toBe(code);
    expect(calls).not.toContain('markDisputed');
  });

  it('answers a 4091 once every instance has the filing it tells of', async () => {
    const { filing, changes } = await filingWith({ market: market('disputed') });
    await filing.submit(partner, body);
    expect(changes.acknowledge).toHaveBeenCalledWith(expect.objectContaining({ source: 'acme', slug: 'btc-100k' }));
  });

  it('remembers an answer under its Idempotency-Key, in the same transaction', async () => {
    const { filing, repository } = await filingWith({ market: market('monitoring') });
    expect(codeOf((await filing.submit(partner, body, key)).answer)).toBe(4090);
    expect(repository.remember).toHaveBeenCalledWith(TX, 'acme', 'k1', { requestHash: 'h1', outcome: 'not_resolved', disputeId: null });
  });

  it('replays a remembered filing, waiting for its change as the first answer did, and files nothing', async () => {
    const { filing, calls, changes } = await filingWith({ remembered: { requestHash: 'h1', outcome: 'filed', disputeId: '9' } });
    expect(await filing.submit(partner, body, key)).toEqual({ answer: { dispute_id: 9 }, replayed: true });
    expect(calls).not.toContain('insert');
    expect(changes.acknowledge).toHaveBeenCalledWith({ source: 'acme', slug: 'btc-100k' });
  });

  it('refuses a key reused with another body (4095) and one still in progress (4096), remembering neither', async () => {
    const reused = await filingWith({ remembered: { requestHash: 'other', outcome: 'filed', disputeId: '9' } });
    expect(codeOf((await reused.filing.submit(partner, body, key)).answer)).toBe(4095);
    const busy = await filingWith({ idempotencyFree: false });
    expect(codeOf((await busy.filing.submit(partner, body, key)).answer)).toBe(4096);
    expect([...reused.calls, ...busy.calls]).not.toContain('remember');
  });

  it('refuses a revoked key before its Idempotency-Key is read (4011), remembering nothing', async () => {
    const { filing, calls } = await filingWith({ keyHeld: false, remembered: { requestHash: 'h1', outcome: 'filed', disputeId: '9' } });
    expect(codeOf((await filing.submit(partner, body, key)).answer)).toBe(4011);
    expect(calls).toEqual(['keyHold', 'holdIdempotencyKey']);
  });
});
