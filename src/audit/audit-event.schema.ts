/**
 * The audit trail's answers, declared once: the handlers' types and, through the swagger CLI
 * plugin, the OpenAPI schemas.
 */
import { ApiProperty } from '@nestjs/swagger';
import { Int64, NextCursor, Timestamp } from '../openapi/responses.schema';

export class AuditEvent {
  /** @example 42 */
  @Int64()
  id: number;

  /** @example "2026-11-03T09:30:00.000Z" */
  @Timestamp()
  at: string;

  /**
   * The reviewer's name (`master` for ADMIN_MASTER_KEY).
   * @example "alice"
   */
  actor: string;

  /** @example "dispute.decided" */
  action: string;

  /** @example "dispute:17" */
  target: string;

  /**
   * What the write changed, and the actor's id.
   * @example {"actor_id":3,"type":"keep","market_id":2,"partner_final_verdict":"YES"}
   */
  details: Record<string, unknown>;
}

export class AuditPage {
  @ApiProperty({ type: () => [AuditEvent], description: 'Newest first.' })
  events: AuditEvent[];

  @NextCursor('16')
  next_cursor: string | null;
}
