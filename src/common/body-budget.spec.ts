import { describe, expect, it } from '@jest/globals';
import { BodyBudget } from './body-budget';

describe('BodyBudget', () => {
  it('gives one client address a quarter of the budget, and never less than one whole body', () => {
    expect(new BodyBudget(8 * 1024 * 1024, 65_536).perClient).toBe(2 * 1024 * 1024);
    expect(new BodyBudget(4 * 65_536, 65_536).perClient).toBe(65_536);
    expect(new BodyBudget(65_536, 65_536).perClient).toBe(65_536);
  });

  it("refuses a client past its share while others still get theirs, then the process past the whole budget", () => {
    const budget = new BodyBudget(400, 50);
    expect(budget.take('a', 60)).toBeUndefined();
    expect(budget.take('a', 40)).toBeUndefined();
    expect(budget.take('a', 1)).toBe('client');
    for (const client of ['b', 'c', 'd']) expect(budget.take(client, 100)).toBeUndefined();
    expect(budget.held).toBe(400);
    expect(budget.take('e', 1)).toBe('process');
    // A refusal takes nothing.
    expect(budget.held).toBe(400);
  });

  it('gives the bytes back, to the client and to the process', () => {
    const budget = new BodyBudget(400, 50);
    budget.take('a', 100);
    budget.take('b', 100);
    budget.give('a', 100);
    expect(budget.held).toBe(100);
    expect(budget.take('a', 100)).toBeUndefined();
    budget.give('a', 100);
    budget.give('b', 100);
    expect(budget.held).toBe(0);
    for (const client of ['a', 'b', 'c', 'd']) expect(budget.take(client, 100)).toBeUndefined();
  });
});
