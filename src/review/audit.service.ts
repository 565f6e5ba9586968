import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { AdminActor } from '../auth/reviewers.service';
import { AuditEvent } from './audit-event.entity';
import type { AuditEventView } from './audit-event-view';

export interface AuditEntry {
  action: string;
  target: string;
  /** Never a key or any other secret. */
  details?: Record<string, unknown>;
}

/** What an audited write returns: its result, and the event to append. */
export interface AuditedWrite<T> {
  result: T;
  audit: AuditEntry;
}

/** The audit trail: every admin write is appended in the transaction of the write itself. */
@Injectable()
export class AuditService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs an admin write and appends its audit event; both commit or neither does. */
  async record<T>(actor: AdminActor, write: (manager: EntityManager) => Promise<AuditedWrite<T>>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      const { result, audit } = await write(manager);
      const details = { actor_id: actor.id === null ? null : Number(actor.id), ...audit.details };
      await manager.query('INSERT INTO audit_events (actor, action, target, details) VALUES ($1, $2, $3, $4)', [
        actor.name,
        audit.action,
        audit.target,
        JSON.stringify(details),
      ]);
      return result;
    });
  }

  /** Newest first. */
  async list(page: { beforeId?: string; limit: number }): Promise<{ events: AuditEventView[]; hasMore: boolean }> {
    const query = this.dataSource.getRepository(AuditEvent).createQueryBuilder('e').orderBy('e.id', 'DESC').limit(page.limit + 1);
    if (page.beforeId) query.where('e.id < :beforeId', { beforeId: page.beforeId });
    const rows = await query.getMany();
    return {
      events: rows.slice(0, page.limit).map((event) => ({
        id: Number(event.id),
        at: event.at.toISOString(),
        actor: event.actor,
        action: event.action,
        target: event.target,
        details: event.details,
      })),
      hasMore: rows.length > page.limit,
    };
  }
}
