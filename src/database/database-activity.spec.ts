import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { DatabaseActivity } from './database-activity';

const CONNECT_TIMEOUT_MS = 1500;
const poolWaitTimeout = new Error('timeout exceeded when trying to connect');

describe('DatabaseActivity', () => {
  let activity: DatabaseActivity;

  beforeEach(() => {
    jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate'] });
    activity = new DatabaseActivity(CONNECT_TIMEOUT_MS);
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('reads a pool wait that timed out as a database failure until the database answers a statement', () => {
    expect(activity.answeredRecently()).toBe(false);
    expect(activity.isOverload(poolWaitTimeout)).toBe(false);
    activity.statementEnded();
    expect(activity.answeredRecently()).toBe(true);
    expect(activity.isOverload(poolWaitTimeout)).toBe(true);
  });

  it('counts an SQL error (a unique violation) as an answer; a lost connection, a timeout or a pool wait not', () => {
    activity.statementEnded({ code: 'ECONNRESET', message: 'read ECONNRESET' });
    activity.statementEnded({ code: '57014', message: 'canceling statement due to statement timeout' });
    activity.statementEnded(new Error('Query read timeout'));
    activity.statementEnded(poolWaitTimeout);
    expect(activity.isOverload(poolWaitTimeout)).toBe(false);
    activity.statementEnded({ code: '23505', message: 'duplicate key value violates unique constraint' });
    expect(activity.isOverload(poolWaitTimeout)).toBe(true);
  });

  it('forgets the last answer once it is older than the wait for a connection', () => {
    activity.statementEnded();
    jest.advanceTimersByTime(CONNECT_TIMEOUT_MS);
    expect(activity.isOverload(poolWaitTimeout)).toBe(true);
    jest.advanceTimersByTime(1);
    expect(activity.isOverload(poolWaitTimeout)).toBe(false);
  });

  it('asks for a pool wait with no answer heard in its window to be judged again once the sockets are read', () => {
    expect(activity.mayHaveUnreadAnswers(poolWaitTimeout)).toBe(true);
    expect(activity.mayHaveUnreadAnswers({ code: 'ECONNREFUSED' })).toBe(false);
    activity.statementEnded();
    expect(activity.mayHaveUnreadAnswers(poolWaitTimeout)).toBe(false);
  });

  it('is about pool waits only: any other failure stays what it is', () => {
    activity.statementEnded();
    expect(activity.isOverload({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' })).toBe(false);
    expect(activity.isOverload(new Error('Connection terminated due to connection timeout'))).toBe(false);
    expect(activity.isOverload({ driverError: poolWaitTimeout })).toBe(true);
  });
});
