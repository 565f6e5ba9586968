import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { isDeadlock } from '../database/database-errors';
import { Sql, statement } from '../database/sql';
import { rfc3339 } from '../database/sql-fragments';
import type { AuditEventView } from './audit-event-view';

/** Who writes: a reviewer account, or the master key (no account, id null). */
export interface AuditActor {
  id: string | null;
  name: string;
}

export interface AuditEntry {
  action: string;
  target: string;
  /** Never a key or any other secret. */
  details?: Record<string, unknown>;
}

// The acting account, held until the write commits: false once revoked (see AuditTrail.record).
const HOLD_ACTOR = statement<{ held: boolean }>('SELECT hold_reviewer($1) AS held');
const APPEND_EVENT = statement('INSERT INTO audit_events (actor, action, target, details) VALUES ($1, $2, $3, $4)');
const AUDIT_PAGE = statement<Omit<AuditEventView, 'id'> & { id: string }>(`
  SELECT id, ${rfc3339('at')} AS at, actor, action, target, details FROM audit_events
  WHERE ($1::bigint IS NULL OR id < $1) ORDER BY id DESC LIMIT $2`);

/** What an audited write returns: its result, and the event to append (null: it changed nothing). */
export interface AuditedWrite<T> {
  result: T;
  audit: AuditEntry | null;
}

/** The audit trail: every admin write is appended in the transaction of the write itself. */
@Injectable()
export class AuditTrail {
  constructor(private readonly sql: Sql) {}

  /**
   * Runs an admin write and appends its audit event; both commit or neither does. A repeat that
   * changes nothing (revoking what is already revoked) appends none.
   *
   * The acting account is held until the write commits (hold_reviewer, migration
   * FairCredentialHolds): a revocation waits for the writes in progress by that account, and a
   * write that waited for a revocation finds its account revoked (4012). Once a revocation has
   * answered, nothing the account does commits after it (the guard's lookup alone is a step
   * earlier). Two admins revoking each other at once each hold their own account and wait for
   * the other's: PostgreSQL ends one of the two transactions (a deadlock), which is run again
   * and then finds its account revoked.
   */
  async record<T>(actor: AuditActor, write: (manager: EntityManager) => Promise<AuditedWrite<T>>): Promise<T> {
    let result: T;
    try {
      result = await this.attempt(actor, write);
    } catch (error) {
      if (!isDeadlock(error)) throw error;
      result = await this.attempt(actor, write);
    }
    // The admin reads its write back, on a replica too (its listings read there).
    await this.sql.readYourWrites();
    return result;
  }

  private attempt<T>(actor: AuditActor, write: (manager: EntityManager) => Promise<AuditedWrite<T>>): Promise<T> {
    return this.sql.transaction(async (manager) => {
      if (actor.id !== null && !(await this.sql.rows(HOLD_ACTOR, [actor.id], manager))[0].held) {
        throw new ApiError(ErrorCatalogue.ADMIN_CREDENTIALS_INVALID);
      }
      const { result, audit } = await write(manager);
      if (!audit) return result;
      const details = { actor_id: actor.id === null ? null : Number(actor.id), ...audit.details };
      await this.sql.rows(APPEND_EVENT, [actor.name, audit.action, audit.target, JSON.stringify(details)], manager);
      return result;
    });
  }

  /** Newest first. */
  async list(page: { beforeId?: string; limit: number }): Promise<{ events: AuditEventView[]; hasMore: boolean }> {
    const rows = await this.sql.readRows(AUDIT_PAGE, [page.beforeId ?? null, page.limit + 1]);
    return {
      events: rows.slice(0, page.limit).map(({ id, ...event }) => ({ id: Number(id), ...event })),
      hasMore: rows.length > page.limit,
    };
  }
}
