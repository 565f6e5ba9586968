import { describe, expect, it } from '@jest/globals';
import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isDatabaseUnavailable, isUniqueViolation } from './database-errors';
import { SchemaPendingError } from './schema-state';

describe('isDatabaseUnavailable', () => {
  it.each([
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }],
    [{ code: '57P01', message: 'terminating connection due to administrator command' }],
    [{ code: '57014', message: 'canceling statement due to statement timeout' }],
    [{ code: '08006', message: 'connection failure' }],
    [{ code: '55000', message: 'database "oracle" is not currently accepting connections', file: 'postinit.c', routine: 'CheckMyDatabase' }],
    [new Error('timeout exceeded when trying to connect')],
    [new Error('Connection terminated unexpectedly')],
    [{ driverError: { code: 'ECONNRESET' }, message: 'wrapped' }],
    [new QueryRunnerAlreadyReleasedError()],
    [new QueryRunnerProviderAlreadyReleasedError()],
    [new SchemaPendingError()],
  ])('treats %o as the database being unavailable', (error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    [{ code: '23505', message: 'duplicate key value' }],
    [{ code: '42P01', message: 'relation does not exist' }],
    [{ code: '55000', message: 'currval of sequence "s" is not yet defined in this session', file: 'sequence.c' }],
    [new TypeError('x is undefined')],
    [null],
    ['a string'],
  ])('does not treat %o as unavailability', (error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isUniqueViolation', () => {
  it('matches the named constraint, directly or wrapped by TypeORM', () => {
    const pgError = { code: '23505', constraint: 'uq_disputes_market_id' };
    expect(isUniqueViolation(pgError, 'uq_disputes_market_id')).toBe(true);
    expect(isUniqueViolation({ driverError: pgError }, 'uq_disputes_market_id')).toBe(true);
  });

  it('matches any of several names (a unique index reports its own)', () => {
    const pgError = { code: '23505', constraint: 'uq_markets_source_slug_skeleton' };
    expect(isUniqueViolation(pgError, 'uq_markets_source_slug', 'uq_markets_source_slug_skeleton')).toBe(true);
    expect(isUniqueViolation(pgError, 'uq_markets_source_slug')).toBe(false);
  });

  it('does not match another constraint or another error', () => {
    expect(isUniqueViolation({ code: '23505', constraint: 'other' }, 'uq_disputes_market_id')).toBe(false);
    expect(isUniqueViolation({ code: '23503', constraint: 'uq_disputes_market_id' }, 'uq_disputes_market_id')).toBe(false);
  });
});
