import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiParam, ApiTags } from '@nestjs/swagger';
import { PARTNER_LISTED_KEYS } from '../auth/account-listings';
import { AdminAuth, CurrentActor } from '../auth/admin-auth.decorator';
import { PartnerKeysService } from '../auth/partner-keys.service';
import { type AdminActor, ReviewersService } from '../auth/reviewers.service';
import { NoBody, NoQuery } from '../common/no-fields';
import { ParseIdPipe } from '../common/validation';
import { SOURCE_MAX_LENGTH } from '../markets/market-identity';
import { AuditService } from './audit.service';
import { BackOfficeService } from './back-office.service';
import { DEFAULT_PAGE_SIZE, encodeQueueCursor, idAfterCursor, nextCursor, nextPageCursor, queuePlaceAfterCursor } from './cursor';
import {
  CreateMarketDto,
  CreatePartnerDto,
  CreateReviewerDto,
  DecisionDto,
  DisputeQueueQueryDto,
  MarketListQueryDto,
  PageQueryDto,
  PartnerListQueryDto,
  ResolveMarketDto,
  SOURCE_PATTERN,
} from './review.dto';
import { DisputesService } from '../disputes/disputes.service';
import { MarketsService } from '../markets/markets.service';
import { RateLimit } from '../observability/rate-limits';
import { ApiEnvelope, ApiIdParam } from '../openapi/api-envelope.decorator';
import type { ErrorName } from '../common/error-catalogue';
import * as Schemas from '../openapi/schemas';

/** Codes every admin route can answer with: credentials, role, malformed input. */
const READ: ErrorName[] = ['ADMIN_CREDENTIALS_INVALID', 'FORBIDDEN', 'INVALID_REQUEST'];
const WRITE: ErrorName[] = [...READ, 'MALFORMED_JSON', 'PAYLOAD_TOO_LARGE'];

/** The partner source in a path. */
const ApiSourceParam = () =>
  ApiParam({
    name: 'source',
    description: 'The partner\'s source',
    example: 'acme',
    schema: { type: 'string', minLength: 1, maxLength: SOURCE_MAX_LENGTH, pattern: SOURCE_PATTERN },
  });

/** The review back office (contract §4). */
@ApiTags('admin')
@RateLimit('admin')
@Controller('admin')
export class ReviewController {
  constructor(
    private readonly backOffice: BackOfficeService,
    private readonly disputes: DisputesService,
    private readonly audit: AuditService,
    private readonly markets: MarketsService,
    private readonly reviewers: ReviewersService,
    private readonly partnerKeys: PartnerKeysService,
  ) {}

  @Get('me')
  @AdminAuth('reviewer')
  @ApiEnvelope(Schemas.SignedInAccount, 'The account the credential belongs to, with its role (the back office signs in with it)', READ)
  me(@CurrentActor() actor: AdminActor, @Query() _query: NoQuery) {
    return this.backOffice.accountOf(actor);
  }

  @Post('reviewers')
  @HttpCode(200)
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.CreatedReviewer, 'Create a reviewer account (its name its own); its key is shown once', [...WRITE, 'ALREADY_EXISTS'])
  createReviewer(@CurrentActor() actor: AdminActor, @Body() body: CreateReviewerDto, @Query() _query: NoQuery) {
    return this.backOffice.createReviewer(actor, body.name, body.role);
  }

  @Get('reviewers')
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.ReviewerList, 'List reviewer accounts, oldest first', READ)
  async listReviewers(@Query() query: PageQueryDto) {
    const page = await this.reviewers.listReviewers({ afterId: idAfterCursor(query.cursor), limit: query.limit ?? DEFAULT_PAGE_SIZE });
    return { reviewers: page.items, next_cursor: nextPageCursor(page) };
  }

  @Delete('reviewers/:id')
  @ApiIdParam('id', 3, 'The reviewer account\'s id')
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.RevokedReviewer, 'Revoke a reviewer account (not one\'s own: 4031); its key stops working at once', [...READ, 'REVIEWER_NOT_FOUND'])
  revokeReviewer(@CurrentActor() actor: AdminActor, @Param('id', ParseIdPipe) id: string, @Query() _query: NoQuery) {
    return this.backOffice.revokeReviewer(actor, id);
  }

  @Post('partners')
  @HttpCode(200)
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.CreatedPartner, 'Register a partner source with its first API key (shown once)', [...WRITE, 'ALREADY_EXISTS'])
  createPartner(@CurrentActor() actor: AdminActor, @Body() body: CreatePartnerDto, @Query() _query: NoQuery) {
    return this.backOffice.createPartner(actor, body.source, body.name);
  }

  @Get('partners')
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.PartnerList, `Find partners by part of the source or name, in registration order, each with its ${PARTNER_LISTED_KEYS} newest keys (prefixes only)`, READ)
  async listPartners(@Query() query: PartnerListQueryDto) {
    const page = await this.partnerKeys.listPartners({ contains: query.q, afterId: idAfterCursor(query.cursor), limit: query.limit ?? DEFAULT_PAGE_SIZE });
    return { partners: page.items, next_cursor: nextPageCursor(page) };
  }

  @Get('partners/:source/keys')
  @ApiSourceParam()
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.PartnerKeyPage, 'List a partner\'s API keys (prefixes only), newest first', [...READ, 'PARTNER_NOT_FOUND'])
  async listKeys(@Param('source') source: string, @Query() query: PageQueryDto) {
    const page = await this.partnerKeys.listKeys(source, { beforeId: idAfterCursor(query.cursor), limit: query.limit ?? DEFAULT_PAGE_SIZE });
    return { keys: page.items, next_cursor: nextPageCursor(page) };
  }

  @Post('partners/:source/keys')
  @ApiSourceParam()
  @HttpCode(200)
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.IssuedKey, 'Issue another API key for a partner (shown once)', [...WRITE, 'PARTNER_NOT_FOUND'])
  @ApiBody({ type: NoBody, required: false, description: 'No body, or an empty object' })
  issueKey(@CurrentActor() actor: AdminActor, @Param('source') source: string, @Query() _query: NoQuery, @Body() _body: NoBody) {
    return this.backOffice.issueKey(actor, source);
  }

  @Delete('partners/:source/keys/:key_id')
  @ApiSourceParam()
  @ApiIdParam('key_id', 5, 'The key\'s id (key_id in GET /admin/partners)')
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.RevokedKey, 'Revoke a partner API key', [...READ, 'PARTNER_NOT_FOUND', 'API_KEY_NOT_FOUND'])
  revokeKey(
    @CurrentActor() actor: AdminActor,
    @Param('source') source: string,
    @Param('key_id', ParseIdPipe) keyId: string,
    @Query() _query: NoQuery,
  ) {
    return this.backOffice.revokeKey(actor, source, keyId);
  }

  @Get('markets')
  @AdminAuth('reviewer')
  @ApiEnvelope(Schemas.MarketList, 'Find markets by source, status and part of the slug, newest first', READ)
  async listMarkets(@Query() query: MarketListQueryDto) {
    const { markets, hasMore } = await this.markets.listMarkets({
      source: query.source,
      status: query.status,
      slugContains: query.q,
      beforeId: idAfterCursor(query.cursor),
      limit: query.limit ?? DEFAULT_PAGE_SIZE,
    });
    return { markets, next_cursor: nextCursor(markets, hasMore) };
  }

  @Post('markets')
  @HttpCode(200)
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.MarketItem, 'Create a market in `monitoring`', [...WRITE, 'PARTNER_NOT_FOUND', 'ALREADY_EXISTS'])
  createMarket(@CurrentActor() actor: AdminActor, @Body() body: CreateMarketDto, @Query() _query: NoQuery) {
    return this.backOffice.createMarket(actor, body.source, body.slug);
  }

  @Post('markets/:id/resolve')
  @ApiIdParam('id', 2, 'The market\'s id')
  @HttpCode(200)
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.MarketItem, 'Resolve a monitoring market with its verdict and proofs', [...WRITE, 'MARKET_NOT_FOUND', 'MARKET_NOT_MONITORING'])
  resolveMarket(
    @Param('id', ParseIdPipe) id: string,
    @CurrentActor() actor: AdminActor,
    @Body() body: ResolveMarketDto,
    @Query() _query: NoQuery,
  ) {
    return this.backOffice.resolveMarket(actor, id, body);
  }

  @Get('disputes')
  @AdminAuth('reviewer')
  @ApiEnvelope(Schemas.DisputeQueue, 'The dispute queue: open disputes before closed ones, each oldest first; or one status', READ)
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
  @AdminAuth('reviewer')
  @ApiEnvelope(Schemas.DisputeCounts, 'How many disputes are open and closed', READ)
  countDisputes(@Query() _query: NoQuery) {
    return this.backOffice.countDisputes();
  }

  @Get('disputes/:id')
  @ApiIdParam('id', 17, 'The dispute\'s id')
  @AdminAuth('reviewer')
  @ApiEnvelope(Schemas.AdminDispute, 'One dispute with its market and submitter', [...READ, 'DISPUTE_NOT_FOUND'])
  getDispute(@Param('id', ParseIdPipe) id: string, @Query() _query: NoQuery) {
    return this.backOffice.getDispute(id);
  }

  @Post('disputes/:id/decision')
  @ApiIdParam('id', 17, 'The dispute\'s id')
  @HttpCode(200)
  @AdminAuth('reviewer')
  @ApiEnvelope(Schemas.AdminDispute, 'Close an open dispute with a keep or override decision', [...WRITE, 'DISPUTE_NOT_FOUND', 'DISPUTE_ALREADY_DECIDED'])
  recordDecision(
    @Param('id', ParseIdPipe) id: string,
    @CurrentActor() actor: AdminActor,
    @Body() body: DecisionDto,
    @Query() _query: NoQuery,
  ) {
    return this.backOffice.recordDecision(actor, id, body.type, body.reason_text);
  }

  @Get('audit')
  @AdminAuth('admin')
  @ApiEnvelope(Schemas.AuditPage, 'The audit log of admin writes, newest first', READ)
  async listAudit(@Query() query: PageQueryDto) {
    const { events, hasMore } = await this.audit.list({
      beforeId: idAfterCursor(query.cursor),
      limit: query.limit ?? DEFAULT_PAGE_SIZE,
    });
    return { events, next_cursor: nextCursor(events, hasMore) };
  }
}
