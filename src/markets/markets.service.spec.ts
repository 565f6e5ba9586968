import { describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import type { Transaction } from '../database/sql';
import type { MarketStatus } from './market-state';
import { MarketsRepository } from './markets.repository';
import { MarketsService } from './markets.service';
import { PublicRecords } from './public-records/public-records';

const TX = {} as Transaction;
const resolution = { verdict: 'YES', confidence: 'HIGH' as const, reasoning: 'r', proofs: [], resolvedAt: new Date() };

async function serviceWith(status: MarketStatus | null) {
  const repository = {
    lock: jest.fn(async (..._args: unknown[]) => ({ passed: true, market: status === null ? undefined : { id: '42', source: 'acme', slug: 'btc-100k', status, verdict: null } })),
    resolve: jest.fn(async (..._args: unknown[]) => undefined),
    setStatus: jest.fn(async (..._args: unknown[]) => undefined),
    insert: jest.fn(async (..._args: unknown[]) => '43'),
  };
  const module = await Test.createTestingModule({
    providers: [MarketsService, { provide: MarketsRepository, useValue: repository }, { provide: PublicRecords, useValue: {} }],
  }).compile();
  return { markets: module.get(MarketsService), repository };
}

describe('MarketsService', () => {
  it('resolves a monitored market only (4094 from any other state, 4040 for none)', async () => {
    const monitored = await serviceWith('monitoring');
    await monitored.markets.resolveMarket(TX, '42', resolution);
    expect(monitored.repository.resolve).toHaveBeenCalledWith(TX, '42', resolution);
    for (const status of ['resolved', 'disputed', 'closed'] as const) {
      const { markets, repository } = await serviceWith(status);
      await expect(markets.resolveMarket(TX, '42', resolution)).rejects.toMatchObject({ code: 4094 });
      expect(repository.resolve).not.toHaveBeenCalled();
    }
    await expect((await serviceWith(null)).markets.resolveMarket(TX, '42', resolution)).rejects.toMatchObject({ code: 4040 });
  });

  it('closes a disputed market once its dispute is decided, and refuses to close one in any other state', async () => {
    const { markets, repository } = await serviceWith('disputed');
    await markets.closeAfterDecision(TX, { id: '42', source: 'acme', slug: 'b', status: 'disputed', verdict: 'YES' });
    expect(repository.setStatus).toHaveBeenCalledWith(TX, '42', 'closed');
    await expect(markets.closeAfterDecision(TX, { id: '42', source: 'acme', slug: 'b', status: 'resolved', verdict: 'YES' })).rejects.toThrow('must be disputed');
  });

  it('stores a new slug in NFC with its confusable skeleton', async () => {
    const { markets, repository } = await serviceWith(null);
    await markets.createMarket(TX, 'acme', 'cafe\u0301');
    expect(repository.insert).toHaveBeenCalledWith(TX, { source: 'acme', slug: 'caf\u00e9', slugSkeleton: expect.any(String) });
  });
});
