import { ApiFailure } from './api';
import { h, type Child } from './dom';

/** A message the page itself words for the reviewer (not an API failure, not a bug). */
export class PageMessage extends Error {}

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
