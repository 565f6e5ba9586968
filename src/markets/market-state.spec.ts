import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../common/error-catalogue';
import { assertClosable, assertResolvable } from './market-state';

describe('market transitions', () => {
  it('resolves only a monitoring market', () => {
    expect(() => assertResolvable('monitoring')).not.toThrow();
    for (const status of ['resolved', 'disputed', 'closed'] as const) {
      expect(() => assertResolvable(status)).toThrow(ApiError);
    }
  });

  it('closes a disputed market after a decision, and nothing else', () => {
    expect(() => assertClosable('disputed')).not.toThrow();
    expect(() => assertClosable('resolved')).toThrow();
  });
});
