import { ApiFailure } from './api';
import { h, type Child } from './dom';

/** A message the page itself words for the reviewer (not an API failure, not a bug); `field`, when it is about one, is shown beside it and keeps the focus. */
export class PageMessage extends Error {
  constructor(
    message: string,
    readonly field?: HTMLElement,
  ) {
    super(message);
  }
}

/** What went wrong, as sentences: never an envelope, and never a bug's own message. */
export function failureLines(error: unknown): Child[] {
  if (error instanceof ApiFailure) {
    return [
      h('p', null, error.message),
      error.is('INVALID_REQUEST') && error.detail ? h('p', { class: 'detail' }, `What to fix: ${error.detail}.`) : null,
      error.serverSide && error.requestId ? h('p', { class: 'detail' }, `Reference for the operators: ${error.requestId}`) : null,
    ];
  }
  if (error instanceof PageMessage) return [h('p', null, error.message)];
  return [h('p', null, 'Something went wrong in this page. Reload it and try again.')];
}
