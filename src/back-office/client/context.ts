import type { Child } from './dom';
import type { Account } from './types';

/** What a view gets from the shell (app.ts). */
export interface Context {
  /** Who signed in: the role decides what is offered; the id, which account is one's own. */
  account: Account;
  /** Calls the admin API with the session's key; an answer ADMIN_CREDENTIALS_INVALID ends the session. */
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Replaces the view's content, unless the reviewer has gone elsewhere meanwhile. */
  show(...children: Child[]): void;
  /** Says what went wrong as a sentence, in the page's alert region. */
  fail(error: unknown): void;
  /** Confirms what was done, in the page's status region. */
  done(message: string): void;
  /** Whether this view is still the one on screen. */
  current(): boolean;
}

export type View = (context: Context, parameters: string[]) => Promise<void>;
