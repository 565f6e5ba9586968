import { Injectable } from '@nestjs/common';
import { Sql, sql, raw, type Transaction } from '../database/sql';
import { rfc3339 } from '../database/sql-fragments';
import type { AuditEvent } from './audit-event.schema';

/** The audit trail's SQL: appended in the writes' transactions, read newest first. */
@Injectable()
export class AuditRepository {
  constructor(private readonly sql: Sql) {}

  /** Holds account `accountId` until `tx` commits; false once it is revoked (hold_reviewer, auth/credential-holds.functions.ts). */
  async holdAccount(tx: Transaction, accountId: string): Promise<boolean> {
    const [{ held }] = await this.sql.rows(sql<{ held: boolean }>`SELECT hold_reviewer(${accountId}) AS held`, tx);
    return held;
  }

  async append(tx: Transaction, event: { actor: string; action: string; target: string; details: Record<string, unknown> }): Promise<void> {
    await this.sql.rows(
      sql`INSERT INTO audit_events (actor, action, target, details) VALUES (${event.actor}, ${event.action}, ${event.target}, ${JSON.stringify(event.details)})`,
      tx,
    );
  }

  /** Up to `limit` events before `beforeId`, newest first. */
  async page(beforeId: string | null, limit: number): Promise<(Omit<AuditEvent, 'id'> & { id: string })[]> {
    return this.sql.readRows(sql<Omit<AuditEvent, 'id'> & { id: string }>`
      SELECT id, ${raw(rfc3339('at'))} AS at, actor, action, target, details FROM audit_events
      WHERE (${beforeId}::bigint IS NULL OR id < ${beforeId}) ORDER BY id DESC LIMIT ${limit}`);
  }
}
