/** Events one redeliver queues at most (oldest first): past them, call again from the last one received. */
export const REDELIVER_LIMIT = 10_000;
