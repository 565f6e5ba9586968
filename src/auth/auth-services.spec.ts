import { describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { authConfig } from '../config/configuration';
import type { Transaction } from '../database/sql';
import { AuthRepository } from './auth.repository';
import { hashKey } from './key-hashing';
import { PartnerKeysService } from './partner-keys.service';
import { ReviewersService } from './reviewers.service';

const TX = {} as Transaction;
const MASTER_KEY = 'master-key-0123456789abcdefghijkl';

/** Both services over a faked AuthRepository (no database), the master key configured. */
async function servicesWith(repository: Partial<Record<keyof AuthRepository, unknown>>) {
  const module = await Test.createTestingModule({
    providers: [
      PartnerKeysService,
      ReviewersService,
      { provide: AuthRepository, useValue: repository },
      { provide: authConfig.KEY, useValue: { adminMasterKey: MASTER_KEY } },
    ],
  }).compile();
  return { partnerKeys: module.get(PartnerKeysService), reviewers: module.get(ReviewersService) };
}

describe('PartnerKeysService', () => {
  it("authenticates a key by its hash, and records its use at most once a minute", async () => {
    const repository = {
      keyHolder: jest.fn(async (hash: string) => (hash === hashKey('sok_key') ? { key_id: '7', partner_id: '1', source: 'acme' } : undefined)),
      touchKey: jest.fn(async () => undefined),
    };
    const { partnerKeys } = await servicesWith(repository);
    await expect(partnerKeys.authenticate(hashKey('sok_key'))).resolves.toEqual({ keyId: '7', partnerId: '1', source: 'acme' });
    await partnerKeys.authenticate(hashKey('sok_key'));
    expect(repository.touchKey).toHaveBeenCalledTimes(1);
    await expect(partnerKeys.authenticate(hashKey('sok_guess'))).resolves.toBeNull();
  });

  it('stores a new key only as its hash and display prefix, and shows the secret once', async () => {
    const repository = { insertKey: jest.fn(async (..._args: unknown[]) => '8') };
    const { partnerKeys } = await servicesWith(repository);
    const issued = await partnerKeys.issueKey(TX, '1');
    expect(issued.keyId).toBe('8');
    expect(issued.apiKey).toMatch(/^sok_/);
    expect(repository.insertKey).toHaveBeenCalledWith(TX, '1', { key: issued.apiKey, prefix: issued.apiKey.slice(0, 12), hash: hashKey(issued.apiKey) });
  });

  it('answers 4042 for a source PostgreSQL text cannot hold, without a statement, and 4045 for a key not its partner\'s', async () => {
    const repository = { partner: jest.fn(), lockKeyForRevocation: jest.fn(async () => undefined) };
    const { partnerKeys } = await servicesWith(repository);
    await expect(partnerKeys.requirePartner(TX, 'ac\u0000me')).rejects.toMatchObject({ code: 4042 });
    expect(repository.partner).not.toHaveBeenCalled();
    await expect(partnerKeys.revokeKey(TX, '1', '9')).rejects.toMatchObject({ code: 4045 });
  });

  it('revokes a key once: again, it says it already was', async () => {
    const key = { revokedAt: null as Date | null };
    const repository = { lockKeyForRevocation: jest.fn(async () => key), revokeKey: jest.fn(async () => undefined) };
    const { partnerKeys } = await servicesWith(repository);
    await expect(partnerKeys.revokeKey(TX, '1', '7')).resolves.toMatchObject({ revokedNow: true });
    await expect(partnerKeys.revokeKey(TX, '1', '7')).resolves.toMatchObject({ revokedNow: false });
    expect(repository.revokeKey).toHaveBeenCalledTimes(1);
  });
});

describe('ReviewersService', () => {
  it('authenticates the master key as the admin "master" without a statement, and accounts by their key hash', async () => {
    const repository = { accountByKey: jest.fn(async (hash: string) => (hash === hashKey('soa_bob') ? { id: '2', name: 'bob', role: 'reviewer' } : null)) };
    const { reviewers } = await servicesWith(repository);
    await expect(reviewers.authenticate(hashKey(MASTER_KEY))).resolves.toEqual({ id: null, name: 'master', role: 'admin' });
    expect(repository.accountByKey).not.toHaveBeenCalled();
    await expect(reviewers.authenticate(hashKey('soa_bob'))).resolves.toMatchObject({ name: 'bob', role: 'reviewer' });
    await expect(reviewers.authenticate(hashKey('soa_guess'))).resolves.toBeNull();
  });

  it('refuses the master key\'s name in any case or look-alike letters (4093) before any statement', async () => {
    const repository = { insertReviewer: jest.fn() };
    const { reviewers } = await servicesWith(repository);
    for (const name of ['master', 'MASTER', 'm\u0430ster']) {
      await expect(reviewers.createReviewer(TX, name, 'reviewer')).rejects.toMatchObject({ code: 4093 });
    }
    expect(repository.insertReviewer).not.toHaveBeenCalled();
  });
});
