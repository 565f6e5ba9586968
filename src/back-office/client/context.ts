import type { Child } from './dom';
import type { Near, Notices } from './notice-board';
import type { Account } from './types';

/** What a view gets from the shell (app.ts). */
export interface Context {
  /** Who signed in: the role decides what is offered; the id, which account is one's own. */
  account: Account;
  /** The view's part of the URL after `?` (#/markets?source=acme): its filters, kept across Back and reloads. */
  query: URLSearchParams;
  /** Puts the view's filters in the URL (no new history entry, no reload), so that Back and a reload find them. */
  keep(filters: Record<string, string>): void;
  /** Calls the admin API with the session's key; an answer ADMIN_CREDENTIALS_INVALID ends the session. */
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Replaces the view's content, unless the reviewer has gone elsewhere meanwhile. */
  show(...children: Child[]): void;
  /** Notices beside an action: right after `near` (its button, the panel it drew). */
  at(near: Near): Notices;
  /** Says what went wrong, after the view's heading (a failure about no one control). */
  fail(error: unknown): void;
  /** Confirms what was done, after the view's heading. */
  done(message: Child | Child[]): void;
  /** Silences the notices (a new search). */
  clear(): void;
  /** Whether this view is still the one on screen. */
  current(): boolean;
}

export type View = (context: Context, parameters: string[]) => Promise<void>;
