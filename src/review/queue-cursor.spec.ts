import { describe, expect, it } from '@jest/globals';
import { encodeQueueCursor, queuePlaceAfterCursor } from './queue-cursor';

describe('dispute queue cursors', () => {
  it('round-trips a place in the dispute queue, open or closed', () => {
    expect(queuePlaceAfterCursor(encodeQueueCursor({ id: 41, status: 'open' }))).toEqual({ closed: false, id: '41' });
    expect(queuePlaceAfterCursor(encodeQueueCursor({ id: '41', status: 'closed' }))).toEqual({ closed: true, id: '41' });
    expect(queuePlaceAfterCursor(undefined)).toBeUndefined();
    expect(() => queuePlaceAfterCursor('ABC')).toThrow(expect.objectContaining({ code: 4000 }));
  });
});
