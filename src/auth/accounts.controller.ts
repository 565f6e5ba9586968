import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { DEFAULT_PAGE_SIZE, idAfterCursor, nextPageCursor } from '../common/cursor';
import { NoBody, NoQuery } from '../common/no-fields';
import { PageQueryDto } from '../common/page-query.dto';
import { ParseIdPipe } from '../common/validation';
import { RateLimit } from '../rate-limits/rate-limits';
import { ApiEnvelope, ApiIdParam } from '../openapi/api-envelope.decorator';
import { CreatePartnerDto, CreateReviewerDto, PartnerListQueryDto } from './accounts.dto';
import { CreatedReviewer, ReviewerList, RevokedReviewer, SignedInAccount } from './accounts.schema';
import { AdminAccounts } from './admin-accounts';
import { CurrentActor, Roles } from './access.decorators';
import { PartnerKeysService } from './partner-keys.service';
import { ApiSourceParam } from './partner-source';
import { PARTNER_LISTED_KEYS, CreatedPartner, IssuedKey, PartnerKeyPage, PartnerList, RevokedKey } from './partners.schema';
import { type AdminActor, ReviewersService } from './reviewers.service';
import { JsonBody } from '../edge/json-body.interceptor';

/** The admin API's accounts: who is signed in, reviewer accounts, partners and their keys (contract §4). */
@ApiTags('admin')
@RateLimit('admin')
@Controller('admin')
export class AccountsController {
  constructor(
    private readonly accounts: AdminAccounts,
    private readonly reviewers: ReviewersService,
    private readonly partnerKeys: PartnerKeysService,
  ) {}

  @Get('me')
  @Roles('admin', 'reviewer')
  @ApiEnvelope(SignedInAccount, 'The account the credential belongs to, with its role (the back office signs in with it)')
  me(@CurrentActor() actor: AdminActor, @Query() _query: NoQuery) {
    return this.accounts.accountOf(actor);
  }

  @Post('reviewers')
  @JsonBody()
  @HttpCode(200)
  @Roles('admin')
  @ApiEnvelope(CreatedReviewer, 'Create a reviewer account (its name its own); its key is shown once', ['ALREADY_EXISTS'])
  createReviewer(@CurrentActor() actor: AdminActor, @Body() body: CreateReviewerDto, @Query() _query: NoQuery) {
    return this.accounts.createReviewer(actor, body.name, body.role);
  }

  @Get('reviewers')
  @Roles('admin')
  @ApiEnvelope(ReviewerList, 'List reviewer accounts, oldest first')
  async listReviewers(@Query() query: PageQueryDto) {
    const page = await this.reviewers.listReviewers({ afterId: idAfterCursor(query.cursor), limit: query.limit ?? DEFAULT_PAGE_SIZE });
    return { reviewers: page.items, next_cursor: nextPageCursor(page) };
  }

  @Delete('reviewers/:id')
  @ApiIdParam('id', 3, 'The reviewer account\'s id')
  @Roles('admin')
  @ApiEnvelope(RevokedReviewer, 'Revoke a reviewer account (not one\'s own: 4031); its key stops working at once', ['REVIEWER_NOT_FOUND'])
  revokeReviewer(@CurrentActor() actor: AdminActor, @Param('id', ParseIdPipe) id: string, @Query() _query: NoQuery) {
    return this.accounts.revokeReviewer(actor, id);
  }

  @Post('partners')
  @JsonBody()
  @HttpCode(200)
  @Roles('admin')
  @ApiEnvelope(CreatedPartner, 'Register a partner source with its first API key (shown once)', ['ALREADY_EXISTS'])
  createPartner(@CurrentActor() actor: AdminActor, @Body() body: CreatePartnerDto, @Query() _query: NoQuery) {
    return this.accounts.createPartner(actor, body.source, body.name);
  }

  @Get('partners')
  @Roles('admin')
  @ApiEnvelope(PartnerList, `Find partners by part of the source or name, in registration order, each with its ${PARTNER_LISTED_KEYS} newest keys (prefixes only)`)
  async listPartners(@Query() query: PartnerListQueryDto) {
    const page = await this.partnerKeys.listPartners({ contains: query.q, afterId: idAfterCursor(query.cursor), limit: query.limit ?? DEFAULT_PAGE_SIZE });
    return { partners: page.items, next_cursor: nextPageCursor(page) };
  }

  @Get('partners/:source/keys')
  @ApiSourceParam()
  @Roles('admin')
  @ApiEnvelope(PartnerKeyPage, 'List a partner\'s API keys (prefixes only), newest first', ['PARTNER_NOT_FOUND'])
  async listKeys(@Param('source') source: string, @Query() query: PageQueryDto) {
    const page = await this.partnerKeys.listKeys(source, { beforeId: idAfterCursor(query.cursor), limit: query.limit ?? DEFAULT_PAGE_SIZE });
    return { keys: page.items, next_cursor: nextPageCursor(page) };
  }

  @Post('partners/:source/keys')
  @JsonBody()
  @ApiSourceParam()
  @HttpCode(200)
  @Roles('admin')
  @ApiEnvelope(IssuedKey, 'Issue another API key for a partner (shown once)', ['PARTNER_NOT_FOUND'])
  @ApiBody({ type: NoBody, required: false, description: 'No body, or an empty object' })
  issueKey(@CurrentActor() actor: AdminActor, @Param('source') source: string, @Query() _query: NoQuery, @Body() _body: NoBody) {
    return this.accounts.issueKey(actor, source);
  }

  @Delete('partners/:source/keys/:key_id')
  @ApiSourceParam()
  @ApiIdParam('key_id', 5, 'The key\'s id (key_id in GET /admin/partners)')
  @Roles('admin')
  @ApiEnvelope(RevokedKey, 'Revoke a partner API key', ['PARTNER_NOT_FOUND', 'API_KEY_NOT_FOUND'])
  revokeKey(
    @CurrentActor() actor: AdminActor,
    @Param('source') source: string,
    @Param('key_id', ParseIdPipe) keyId: string,
    @Query() _query: NoQuery,
  ) {
    return this.accounts.revokeKey(actor, source, keyId);
  }
}
