import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { AuthenticatedPartner } from '../../auth/partner-keys.service';
import type { ServiceRequest } from '../../common/request-context';
import type { ChangesFeed } from './changes-feed';
import { ChangesController } from './changes.controller';

describe('ChangesController', () => {
  /** The signal the feed is given for a request whose response is `closed` or not yet. */
  function leftSignal(closed: boolean): AbortSignal {
    let given: AbortSignal | undefined;
    const feed = { read: (_partner: unknown, _query: unknown, _context: unknown, left: AbortSignal) => ((given = left), Promise.resolve({ changes: [], next_after: 0 })) };
    const res = Object.assign(new EventEmitter(), { closed });
    void new ChangesController(feed as unknown as ChangesFeed).read({} as AuthenticatedPartner, {}, { res, context: {} } as unknown as ServiceRequest);
    return given!;
  }

  it('ends the long poll of a client that left before the handler ran, and of one that leaves later', () => {
    expect(leftSignal(true).aborted).toBe(true);
    expect(leftSignal(false).aborted).toBe(false);
  });
});
