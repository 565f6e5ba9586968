import { describe, expect, it } from '@jest/globals';
import { idempotencyKeyOf, requestHashOf } from './idempotency-key';

describe('idempotency keys', () => {
  it('takes 1 to 255 printable ASCII characters, sent once', () => {
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    expect(idempotencyKeyOf(['order-42 retry'])).toBe('order-42 retry');
    expect(idempotencyKeyOf(['k'.repeat(255)])).toBe('k'.repeat(255));
    for (const bad of [[''], ['k'.repeat(256)], ['caf\u00e9'], ['tab\there'], ['a', 'b'], []]) {
      expect(() => idempotencyKeyOf(bad)).toThrow(expect.objectContaining({ code: 4000, detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once' }));
    }
  });

  it('hashes the same JSON value alike, whatever the order of its members, and other values apart', () => {
    const hash = requestHashOf({ market_id: 1, reason_text: 'r', nested: { b: [1, { d: 2, c: 3 }], a: null } });
    expect(requestHashOf({ nested: { a: null, b: [1, { c: 3, d: 2 }] }, reason_text: 'r', market_id: 1 })).toBe(hash);
    expect(requestHashOf({ market_id: 1, reason_text: 'r ', nested: { b: [1, { d: 2, c: 3 }], a: null } })).not.toBe(hash);
    expect(requestHashOf({ market_id: '1', reason_text: 'r', nested: { b: [1, { d: 2, c: 3 }], a: null } })).not.toBe(hash);
    expect(requestHashOf({ market_id: 1, reason_text: 'r', nested: { b: [{ d: 2, c: 3 }, 1], a: null } })).not.toBe(hash);
  });
});
