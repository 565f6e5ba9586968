import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../common/error-catalogue';
import { assertClosable, assertDisputable, assertResolvable } from './market-state';

describe('market transitions', () => {
  it('resolves only a monitoring market', () => {
    expect(() => assertResolvable('monitoring')).not.toThrow();
    for (const status of ['resolved', 'disputed', 'closed'] as const) {
      expect(() => assertResolvable(status)).toThrow(ApiError);
    }
  });

  it('disputes only a resolved market', () => {
    expect(() => assertDisputable('resolved')).not.toThrow();
    expect(() => assertDisputable('closed')).toThrow(expect.objectContaining({ code: 4090 }));
  });

  it('closes a disputed market after a decision, and nothing else', () => {
    expect(() => assertClosable('disputed')).not.toThrow();
    expect(() => assertClosable('resolved')).toThrow();
  });
});
