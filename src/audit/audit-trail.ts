import { Injectable } from '@nestjs/common';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { isDeadlock } from '../database/database-errors';
import { Sql, type Transaction } from '../database/sql';
import type { AuditAction } from './audit-actions';
import type { AuditEvent } from './audit-event.schema';
import { type AuditFilter, AuditRepository } from './audit.repository';

/** Who writes: a reviewer account, or the master key (no account, id null). */
export interface AuditActor {
  id: string | null;
  name: string;
}

export interface AuditEntry {
  action: AuditAction;
  target: string;
  /** Never a key or any other secret. */
  details?: Record<string, unknown>;
}

/** What an audited write returns: its result, and the event to append (null: it changed nothing). */
export interface AuditedWrite<T> {
  result: T;
  audit: AuditEntry | null;
}

/** The audit trail: every admin write is appended in the transaction of the write itself. */
@Injectable()
export class AuditTrail {
  constructor(
    private readonly repository: AuditRepository,
    private readonly sql: Sql,
  ) {}

  /** The account is held until commit (hold_reviewer): nothing commits after its revocation answers (4012). Two admins revoking each other deadlock; the retry finds its account revoked. */
  async record<T>(actor: AuditActor, write: (tx: Transaction) => Promise<AuditedWrite<T>>): Promise<T> {
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

  private attempt<T>(actor: AuditActor, write: (tx: Transaction) => Promise<AuditedWrite<T>>): Promise<T> {
    return this.sql.transaction(async (tx) => {
      // The acting account, held until the write commits: false once revoked.
      if (actor.id !== null && !(await this.repository.holdAccount(tx, actor.id))) throw new ApiError(ErrorCatalogue.ADMIN_CREDENTIALS_INVALID);
      const { result, audit } = await write(tx);
      if (!audit) return result;
      const details = { actor_id: actor.id === null ? null : Number(actor.id), ...audit.details };
      await this.repository.append(tx, { actor: actor.name, action: audit.action, target: audit.target, details });
      return result;
    });
  }

  /** Newest first, only the events every filter given matches. */
  async list(page: { beforeId?: string; limit: number; filter?: AuditFilter }): Promise<{ events: AuditEvent[]; hasMore: boolean }> {
    const rows = await this.repository.page(page.filter ?? {}, page.beforeId ?? null, page.limit + 1);
    return {
      events: rows.slice(0, page.limit).map(({ id, ...event }) => ({ id: Number(id), ...event })),
      hasMore: rows.length > page.limit,
    };
  }
}
