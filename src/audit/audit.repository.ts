import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { join, raw, Sql, sql, type Transaction } from '../database/sql';
import { rfc3339 } from '../database/sql-fragments';
import type { AuditEvent } from './audit-event.schema';
import { AuditRecord } from './audit-record.entity';

/** What the trail is filtered by: exact actor, action and target, `from` (inclusive) and `to` (exclusive). */
export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  from?: Date;
  to?: Date;
}

/** The audit trail's SQL: appended in the writes' transactions, read newest first. */
@Injectable()
export class AuditRepository {
  constructor(
    private readonly sql: Sql,
    @InjectRepository(AuditRecord) private readonly records: Repository<AuditRecord>,
  ) {}

  /** Holds account `accountId` until `tx` commits; false once it is revoked (hold_reviewer, auth/credential-holds.functions.ts). */
  async holdAccount(tx: Transaction, accountId: string): Promise<boolean> {
    const [{ held }] = await this.sql.rows(sql<{ held: boolean }>`SELECT hold_reviewer(${accountId}) AS held`, tx);
    return held;
  }

  async append(tx: Transaction, event: Pick<AuditRecord, 'actor' | 'action' | 'target' | 'details'>): Promise<void> {
    await tx.withRepository(this.records).insert(event);
  }

  /**
   * Up to `limit` events after the cursor's that match `filter`, newest first: by id, or with a
   * time bound by (at, id), which ix_audit_events_at serves at any depth (by id, the rows after
   * `to` were read to get past them). The two orders differ only for writes made at once.
   */
  async page(filter: AuditFilter, beforeId: string | null, limit: number): Promise<(Omit<AuditEvent, 'id'> & { id: string })[]> {
    const byTime = filter.from !== undefined || filter.to !== undefined;
    const conditions = [
      beforeId === null ? null : byTime ? sql`(at, id) < (SELECT at, id FROM audit_events WHERE id = ${beforeId})` : sql`id < ${beforeId}`,
      filter.actor === undefined ? null : sql`actor = ${filter.actor}`,
      filter.action === undefined ? null : sql`action = ${filter.action}`,
      filter.target === undefined ? null : sql`target = ${filter.target}`,
      filter.from === undefined ? null : sql`at >= ${filter.from}`,
      filter.to === undefined ? null : sql`at < ${filter.to}`,
    ].filter((condition) => condition !== null);
    return this.sql.readRows(sql<Omit<AuditEvent, 'id'> & { id: string }>`
      SELECT id, ${raw(rfc3339('at'))} AS at, actor, action, target, details FROM audit_events
      WHERE ${conditions.length > 0 ? join(conditions, ' AND ') : raw('true')}
      ORDER BY ${raw(byTime ? 'at DESC, id DESC' : 'id DESC')} LIMIT ${limit}`);
  }
}
