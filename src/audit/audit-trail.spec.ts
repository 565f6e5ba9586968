import { describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { Sql, type Transaction } from '../database/sql';
import { AuditRepository } from './audit.repository';
import { AuditTrail } from './audit-trail';

const TX = {} as Transaction;
const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });

async function trailWith(held: boolean[], transactionFailures: unknown[] = []) {
  const repository = { holdAccount: jest.fn(async (..._args: unknown[]) => held.shift() ?? true), append: jest.fn(async (..._args: unknown[]) => undefined) };
  const sql = {
    transaction: jest.fn(async (work: (tx: Transaction) => Promise<unknown>) => {
      const failure = transactionFailures.shift();
      if (failure) throw failure;
      return work(TX);
    }),
    readYourWrites: jest.fn(async (..._args: unknown[]) => undefined),
  };
  const module = await Test.createTestingModule({
    providers: [AuditTrail, { provide: AuditRepository, useValue: repository }, { provide: Sql, useValue: sql }],
  }).compile();
  return { trail: module.get(AuditTrail), repository, sql };
}

const write = async () => ({ result: 'done', audit: { action: 'market.created' as const, target: 'market:1', details: { slug: 's' } } });

describe('AuditTrail', () => {
  it("appends the write's event, with the acting account's id, in the write's transaction", async () => {
    const { trail, repository } = await trailWith([true]);
    expect(await trail.record({ id: '3', name: 'ann' }, write)).toBe('done');
    expect(repository.append).toHaveBeenCalledWith(TX, { actor: 'ann', action: 'market.created', target: 'market:1', details: { actor_id: 3, slug: 's' } });
  });

  it('refuses a write of an account revoked meanwhile (4012), appending nothing', async () => {
    const { trail, repository } = await trailWith([false]);
    await expect(trail.record({ id: '3', name: 'ann' }, write)).rejects.toMatchObject({ code: 4012 });
    expect(repository.append).not.toHaveBeenCalled();
  });

  it('holds no account for the master key, and appends nothing for a write that changed nothing', async () => {
    const { trail, repository } = await trailWith([]);
    expect(await trail.record({ id: null, name: 'master' }, async () => ({ result: 'same', audit: null }))).toBe('same');
    expect(repository.holdAccount).not.toHaveBeenCalled();
    expect(repository.append).not.toHaveBeenCalled();
  });

  it('runs a write PostgreSQL ended to break a deadlock once more', async () => {
    const { trail, sql } = await trailWith([true], [deadlock]);
    expect(await trail.record({ id: '3', name: 'ann' }, write)).toBe('done');
    expect(sql.transaction).toHaveBeenCalledTimes(2);
  });
});
