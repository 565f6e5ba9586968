import { describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { authConfig } from '../config/configuration';
import type { Transaction } from '../database/sql';
import { AuthRepository } from './auth.repository';
import { hashKey } from './key-hashing';
import { PartnerKeysService } from './partner-keys.service';
import { ReviewersService } from './reviewers.service';

const TX = {} as Transaction;
const MASTER_KEY = 'a-master-key-of-24-characters-at-least';

async function servicesWith(rows: { key?: { id: string; prefix: string; revokedAt: Date | null }; reviewer?: { id: string; name: string; role: 'admin' | 'reviewer'; prefix: string; revokedAt: Date | null } }) {
  const repository = {
    lockKeyForRevocation: jest.fn(async (..._args: unknown[]) => rows.key),
    revokeKey: jest.fn(async (..._args: unknown[]) => undefined),
    lockReviewerForRevocation: jest.fn(async (..._args: unknown[]) => rows.reviewer),
    revokeReviewer: jest.fn(async (..._args: unknown[]) => undefined),
    insertReviewer: jest.fn(async (..._args: unknown[]) => ({ id: '9', name: 'n', role: 'reviewer', prefix: 'soa_x', revokedAt: null })),
  };
  const module = await Test.createTestingModule({
    providers: [
      PartnerKeysService,
      ReviewersService,
      { provide: AuthRepository, useValue: repository },
      { provide: authConfig.KEY, useValue: { adminMasterKey: MASTER_KEY } },
    ],
  }).compile();
  return { partnerKeys: module.get(PartnerKeysService), reviewers: module.get(ReviewersService), repository };
}

describe('PartnerKeysService.revokeKey', () => {
  it('revokes a key once: a repeat answers as the first did and writes nothing', async () => {
    const revokedAt = new Date('2026-12-01T00:00:00Z');
    const live = await servicesWith({ key: { id: '3', prefix: 'sok_a', revokedAt: null } });
    expect(await live.partnerKeys.revokeKey(TX, '1', '3')).toMatchObject({ revokedNow: true });
    expect(live.repository.revokeKey).toHaveBeenCalledWith(TX, '3', expect.any(Date));
    const again = await servicesWith({ key: { id: '3', prefix: 'sok_a', revokedAt } });
    expect(await again.partnerKeys.revokeKey(TX, '1', '3')).toEqual({ key: { id: '3', prefix: 'sok_a', revokedAt }, revokedNow: false });
    expect(again.repository.revokeKey).not.toHaveBeenCalled();
  });

  it("answers 4045 for a key that is not the partner's", async () => {
    const { partnerKeys } = await servicesWith({});
    await expect(partnerKeys.revokeKey(TX, '1', '3')).rejects.toMatchObject({ code: 4045 });
  });
});

describe('ReviewersService', () => {
  const reviewer = { id: '5', name: 'ann', role: 'reviewer' as const, prefix: 'soa_a', revokedAt: null };

  it('refuses an account revoking itself (4031) before anything is locked', async () => {
    const { reviewers, repository } = await servicesWith({ reviewer });
    await expect(reviewers.revokeReviewer(TX, { id: '5', name: 'ann', role: 'admin' }, '5')).rejects.toMatchObject({ code: 4031 });
    expect(repository.lockReviewerForRevocation).not.toHaveBeenCalled();
  });

  it('revokes another account once, and answers 4043 for none', async () => {
    const { reviewers, repository } = await servicesWith({ reviewer });
    expect(await reviewers.revokeReviewer(TX, { id: null, name: 'master', role: 'admin' }, '5')).toMatchObject({ revokedNow: true });
    expect(repository.revokeReviewer).toHaveBeenCalledWith(TX, '5', expect.any(Date));
    await expect((await servicesWith({})).reviewers.revokeReviewer(TX, { id: null, name: 'master', role: 'admin' }, '6')).rejects.toMatchObject({ code: 4043 });
  });

  it("refuses a name that reads as the master key's, in any case or look-alike letters (4093)", async () => {
    const { reviewers, repository } = await servicesWith({});
    for (const name of ['master', 'MASTER', 'm\u0430ster', 'rnaster']) {
      await expect(reviewers.createReviewer(TX, name, 'reviewer')).rejects.toMatchObject({ code: 4093 });
    }
    expect(repository.insertReviewer).not.toHaveBeenCalled();
  });

  it('knows the master key, and nothing else, as the master actor', async () => {
    const { reviewers } = await servicesWith({});
    expect(await reviewers.authenticate(hashKey(MASTER_KEY))).toEqual({ id: null, name: 'master', role: 'admin' });
  });
});
