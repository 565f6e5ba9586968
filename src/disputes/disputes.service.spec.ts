import { describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { RefusalRevealingChange } from '../changes/revealed-change';
import type { Transaction } from '../database/sql';
import type { DisputeStatus, MarketStatus } from '../markets/market-state';
import { MarketsService } from '../markets/markets.service';
import { DisputesRepository } from './disputes.repository';
import { DisputesService } from './disputes.service';

const TX = {} as Transaction;

async function serviceWith(dispute: { status: DisputeStatus } | undefined, marketStatus: MarketStatus = 'disputed') {
  const repository = {
    lock: jest.fn(async (..._args: unknown[]) => dispute && { ...dispute, market_id: '42', submitter_selection: 'NO', source: 'acme', slug: 'btc-100k' }),
    close: jest.fn(async (..._args: unknown[]) => undefined),
  };
  const markets = {
    lockMarket: jest.fn(async (..._args: unknown[]) => ({ id: '42', source: 'acme', slug: 'btc-100k', status: marketStatus, verdict: 'YES' })),
    closeAfterDecision: jest.fn(async (..._args: unknown[]) => undefined),
  };
  const module = await Test.createTestingModule({
    providers: [DisputesService, { provide: DisputesRepository, useValue: repository }, { provide: MarketsService, useValue: markets }],
  }).compile();
  return { disputes: module.get(DisputesService), repository, markets };
}

describe('DisputesService.recordDecision', () => {
  it('closes an open dispute with the final verdict its decision gives, then its market', async () => {
    for (const [type, finalVerdict] of [['override', 'NO'], ['keep', 'YES']] as const) {
      const { disputes, repository, markets } = await serviceWith({ status: 'open' });
      await disputes.recordDecision(TX, '5', { type, reasonText: 'Checked.', decidedBy: 'ann' });
      expect(repository.close).toHaveBeenCalledWith(TX, '5', { type, reasonText: 'Checked.', decidedBy: 'ann', finalVerdict });
      expect(markets.closeAfterDecision).toHaveBeenCalledWith(TX, expect.objectContaining({ id: '42', status: 'disputed' }));
    }
  });

  it('refuses a decided dispute (4092), naming its market so the answer waits for that decision everywhere', async () => {
    const { disputes, repository } = await serviceWith({ status: 'closed' });
    const refusal = await disputes.recordDecision(TX, '5', { type: 'keep', reasonText: 'Again.', decidedBy: 'bob' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RefusalRevealingChange);
    expect(refusal).toMatchObject({ code: 4092, market: { source: 'acme', slug: 'btc-100k' } });
    expect(repository.close).not.toHaveBeenCalled();
  });

  it('answers 4041 for no such dispute', async () => {
    const { disputes } = await serviceWith(undefined);
    await expect(disputes.recordDecision(TX, '5', { type: 'keep', reasonText: 'r', decidedBy: 'ann' })).rejects.toMatchObject({ code: 4041 });
  });
});
