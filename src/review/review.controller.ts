import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AdminAuth, CurrentActor } from '../auth/admin-auth.decorator';
import type { AdminActor } from '../auth/reviewers.service';
import { ParseIdPipe } from '../common/validation';
import { AuditService } from './audit.service';
import { BackOfficeService } from './back-office.service';
import { decodeCursor, encodeCursor } from './cursor';
import {
  CreateMarketDto,
  CreatePartnerDto,
  CreateReviewerDto,
  DecisionDto,
  DisputeQueueQueryDto,
  PageQueryDto,
  ResolveMarketDto,
} from './review.dto';
import { DisputesService } from '../disputes/disputes.service';
import { RateLimit } from '../observability/rate-limits';

const DEFAULT_PAGE_SIZE = 20;

/** The review back office (contract §4). */
@RateLimit('admin')
@Controller('admin')
export class ReviewController {
  constructor(
    private readonly backOffice: BackOfficeService,
    private readonly disputes: DisputesService,
    private readonly audit: AuditService,
  ) {}

  @Post('reviewers')
  @HttpCode(200)
  @AdminAuth('admin')
  createReviewer(@CurrentActor() actor: AdminActor, @Body() body: CreateReviewerDto) {
    return this.backOffice.createReviewer(actor, body.name, body.role);
  }

  @Get('reviewers')
  @AdminAuth('admin')
  async listReviewers() {
    return { reviewers: await this.backOffice.listReviewers() };
  }

  @Delete('reviewers/:id')
  @AdminAuth('admin')
  revokeReviewer(@CurrentActor() actor: AdminActor, @Param('id', ParseIdPipe) id: string) {
    return this.backOffice.revokeReviewer(actor, id);
  }

  @Post('partners')
  @HttpCode(200)
  @AdminAuth('admin')
  createPartner(@CurrentActor() actor: AdminActor, @Body() body: CreatePartnerDto) {
    return this.backOffice.createPartner(actor, body.source, body.name);
  }

  @Get('partners')
  @AdminAuth('admin')
  async listPartners() {
    return { partners: await this.backOffice.listPartners() };
  }

  @Post('partners/:source/keys')
  @HttpCode(200)
  @AdminAuth('admin')
  issueKey(@CurrentActor() actor: AdminActor, @Param('source') source: string) {
    return this.backOffice.issueKey(actor, source);
  }

  @Delete('partners/:source/keys/:key_id')
  @AdminAuth('admin')
  revokeKey(@CurrentActor() actor: AdminActor, @Param('source') source: string, @Param('key_id', ParseIdPipe) keyId: string) {
    return this.backOffice.revokeKey(actor, source, keyId);
  }

  @Post('markets')
  @HttpCode(200)
  @AdminAuth('admin')
  createMarket(@CurrentActor() actor: AdminActor, @Body() body: CreateMarketDto) {
    return this.backOffice.createMarket(actor, body.source, body.slug);
  }

  @Post('markets/:id/resolve')
  @HttpCode(200)
  @AdminAuth('admin')
  resolveMarket(@Param('id', ParseIdPipe) id: string, @CurrentActor() actor: AdminActor, @Body() body: ResolveMarketDto) {
    return this.backOffice.resolveMarket(actor, id, body);
  }

  @Get('disputes')
  @AdminAuth('reviewer')
  async listDisputes(@Query() query: DisputeQueueQueryDto) {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const { disputes, hasMore } = await this.disputes.listAdminDisputes({
      status: query.status,
      afterId: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
      limit,
    });
    return { disputes, next_cursor: hasMore ? encodeCursor(disputes[disputes.length - 1].id) : null };
  }

  @Get('disputes/:id')
  @AdminAuth('reviewer')
  getDispute(@Param('id', ParseIdPipe) id: string) {
    return this.backOffice.getDispute(id);
  }

  @Post('disputes/:id/decision')
  @HttpCode(200)
  @AdminAuth('reviewer')
  recordDecision(@Param('id', ParseIdPipe) id: string, @CurrentActor() actor: AdminActor, @Body() body: DecisionDto) {
    return this.backOffice.recordDecision(actor, id, body.type, body.reason_text);
  }

  @Get('audit')
  @AdminAuth('admin')
  async listAudit(@Query() query: PageQueryDto) {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const { events, hasMore } = await this.audit.list({
      beforeId: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
      limit,
    });
    return { events, next_cursor: hasMore ? encodeCursor(events[events.length - 1].id) : null };
  }
}
