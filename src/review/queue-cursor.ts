import { decodeCursor, encodeCursor } from '../common/cursor';
import type { QueuePlace } from '../disputes/disputes.service';

/** A place in the dispute queue (open before closed, then id) as one number: id × 2, plus 1 if closed. */
export function encodeQueueCursor(last: { id: string | number; status: string }): string {
  return encodeCursor(BigInt(last.id) * 2n + (last.status === 'closed' ? 1n : 0n));
}

/** The place in the dispute queue a query's optional `cursor` names (4000 for one not issued). */
export function queuePlaceAfterCursor(cursor: string | undefined): QueuePlace | undefined {
  if (cursor === undefined) return undefined;
  const place = BigInt(decodeCursor(cursor));
  return { closed: place % 2n === 1n, id: (place / 2n).toString() };
}
