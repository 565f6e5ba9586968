import { describe, expect, it } from '@jest/globals';
import { ByteBudget } from './byte-budget';

describe('ByteBudget', () => {
  it('gives one client address a quarter of the budget, and never less than one whole body', () => {
    expect(new ByteBudget(8 * 1024 * 1024, 65_536).perClient).toBe(2 * 1024 * 1024);
    expect(new ByteBudget(4 * 65_536, 65_536).perClient).toBe(65_536);
    expect(new ByteBudget(65_536, 65_536).perClient).toBe(65_536);
  });

  it("lets a client past its share while the process holds less than half the budget, and past that refuses it while others still get theirs", () => {
    const budget = new ByteBudget(400, 50);
    for (let n = 0; n < 4; n++) expect(budget.take('a', 50)).toBeUndefined();
    expect(budget.held).toBe(200);
    // Over its share (100), and the process at half: 'a' may hold no more.
    expect(budget.take('a', 1)).toBe('client');
    expect(budget.take('b', 100)).toBeUndefined();
    expect(budget.take('b', 1)).toBe('client');
    expect(budget.take('c', 100)).toBeUndefined();
    expect(budget.held).toBe(400);
    expect(budget.take('d', 1)).toBe('process');
    // A refusal takes nothing.
    expect(budget.held).toBe(400);
  });

  it('gives the bytes back, to the client and to the process', () => {
    const budget = new ByteBudget(400, 50);
    expect(budget.take('a', 200)).toBeUndefined();
    expect(budget.take('b', 100)).toBeUndefined();
    expect(budget.take('a', 1)).toBe('client');
    budget.give('a', 150);
    expect(budget.held).toBe(150);
    expect(budget.take('a', 50)).toBeUndefined();
    budget.give('a', 100);
    budget.give('b', 100);
    expect(budget.held).toBe(0);
    for (const client of ['a', 'b', 'c', 'd']) expect(budget.take(client, 100)).toBeUndefined();
  });
});

describe('ByteBudget.hold', () => {
  it('counts what is already in memory whatever the budget; refusal then says why, and give takes it back', () => {
    const budget = new ByteBudget(400, 50);
    budget.hold('a', 500);
    expect(budget.held).toBe(500);
    expect(budget.refusal('a', 0)).toBe('client');
    expect(budget.refusal('b', 0)).toBe('process');
    budget.give('a', 500);
    expect(budget.refusal('a', 0)).toBeUndefined();
    expect(budget.held).toBe(0);
  });
});
