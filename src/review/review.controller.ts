import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuditPage } from '../audit/audit-event.schema';
import { AuditTrail } from '../audit/audit-trail';
import { CurrentActor, Roles } from '../auth/access.decorators';
import type { AdminActor } from '../auth/reviewers.service';
import { DEFAULT_PAGE_SIZE, idAfterCursor, nextCursor } from '../common/cursor';
import { NoQuery } from '../common/no-fields';
import { parseRfc3339 } from '../common/rfc3339';
import { ParseIdPipe } from '../common/validation';
import { AdminDispute, DisputeCounts, DisputeQueue } from '../disputes/disputes.schema';
import { DisputesService } from '../disputes/disputes.service';
import { RateLimit } from '../rate-limits/rate-limits';
import { ApiEnvelope, ApiIdParam } from '../openapi/api-envelope.decorator';
import { encodeQueueCursor, queuePlaceAfterCursor } from './queue-cursor';
import { AuditQueryDto, DecisionDto, DisputeQueueQueryDto } from './review.dto';
import { Reviewing } from './reviewing';
import { JsonBody } from '../edge/json-body.interceptor';

/** Reviewing (contract §4): the dispute queue, decisions, and the audit trail. */
@ApiTags('admin')
@RateLimit('admin')
@Controller('admin')
export class ReviewController {
  constructor(
    private readonly reviewing: Reviewing,
    private readonly disputes: DisputesService,
    private readonly audit: AuditTrail,
  ) {}

  @Get('disputes')
  @Roles('admin', 'reviewer')
  @ApiEnvelope(DisputeQueue, 'The dispute queue: open disputes before closed ones, each oldest first; or one status')
  async listDisputes(@Query() query: DisputeQueueQueryDto) {
    const { disputes, hasMore } = await this.disputes.listAdminDisputes({
      status: query.status,
      after: queuePlaceAfterCursor(query.cursor),
      limit: query.limit ?? DEFAULT_PAGE_SIZE,
    });
    return { disputes, next_cursor: nextCursor(disputes, hasMore, encodeQueueCursor) };
  }

  // Declared before disputes/:id, which would otherwise take `counts` for an id.
  @Get('disputes/counts')
  @Roles('admin', 'reviewer')
  @ApiEnvelope(DisputeCounts, 'How many disputes are open and closed')
  countDisputes(@Query() _query: NoQuery) {
    return this.disputes.countByStatus();
  }

  @Get('disputes/:id')
  @ApiIdParam('id', 17, 'The dispute\'s id')
  @Roles('admin', 'reviewer')
  @ApiEnvelope(AdminDispute, 'One dispute with its market and submitter', ['DISPUTE_NOT_FOUND'])
  getDispute(@Param('id', ParseIdPipe) id: string, @Query() _query: NoQuery) {
    return this.disputes.getAdminDispute(id);
  }

  @Post('disputes/:id/decision')
  @JsonBody()
  @ApiIdParam('id', 17, 'The dispute\'s id')
  @HttpCode(200)
  @Roles('admin', 'reviewer')
  @ApiEnvelope(AdminDispute, 'Close an open dispute with a keep or override decision', ['DISPUTE_NOT_FOUND', 'DISPUTE_ALREADY_DECIDED'])
  recordDecision(
    @Param('id', ParseIdPipe) id: string,
    @CurrentActor() actor: AdminActor,
    @Body() body: DecisionDto,
    @Query() _query: NoQuery,
  ) {
    return this.reviewing.recordDecision(actor, id, body.type, body.reason_text);
  }

  @Get('audit')
  @Roles('admin')
  @ApiEnvelope(AuditPage, 'The audit log of admin writes, newest first; by actor, action, target and time')
  async listAudit(@Query() query: AuditQueryDto) {
    const instant = (text: string | undefined) => (text === undefined ? undefined : parseRfc3339(text));
    const { events, hasMore } = await this.audit.list({
      beforeId: idAfterCursor(query.cursor),
      limit: query.limit ?? DEFAULT_PAGE_SIZE,
      filter: { actor: query.actor, action: query.action, target: query.target, from: instant(query.from), to: instant(query.to) },
    });
    return { events, next_cursor: nextCursor(events, hasMore) };
  }
}
