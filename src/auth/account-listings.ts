import type { AdminRole } from './admin-role';

/**
 * The items of the admin listings of reviewers, partners and their keys, as PostgreSQL builds
 * them (auth.repository.ts); the back office page reads them too.
 */
export interface ReviewerView {
  id: number;
  name: string;
  role: AdminRole;
  created_at: string;
  revoked_at: string | null;
}

/** A key as GET /admin/partners lists it under its partner. */
export interface PartnerKeyView {
  key_id: number;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

/** How many of its keys, the newest, a partner lists with it (contract §4); the rest page on their own. */
export const PARTNER_LISTED_KEYS = 20;

/** A partner with its newest keys (at most PARTNER_LISTED_KEYS of them). */
export interface PartnerView {
  source: string;
  name: string;
  created_at: string;
  keys: PartnerKeyView[];
}

/** A key as GET /admin/partners/{source}/keys lists it. */
export interface KeyView extends PartnerKeyView {
  last_used_at: string | null;
}

/** The caller's account as GET /admin/me answers it (the back office page reads it too). */
export interface AccountView {
  /** The reviewer account's id; null for the master key, which is no account. */
  id: number | null;
  name: string;
  role: AdminRole;
}
