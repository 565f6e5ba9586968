import { Body, Controller, Delete, Get, HttpCode, Injectable, Param, type PipeTransform, Post, Query } from '@nestjs/common';
import { ApiBody, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentActor, Roles } from '../auth/access.decorators';
import { ApiSourceParam } from '../auth/partner-source';
import type { AdminActor } from '../auth/reviewers.service';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { NoBody, NoQuery } from '../common/no-fields';
import { isSafeId, toSafeId } from '../common/validation';
import { RateLimit } from '../rate-limits/rate-limits';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import * as Schemas from './webhooks.schema';
import { CreateWebhookDto, RedeliverDto } from './webhooks.dto';
import { REDELIVER_LIMIT } from './redeliver-limit';
import { WebhooksService } from './webhooks.service';
import { JsonBody } from '../edge/json-body.interceptor';

/** A webhook id in a path: anything that is not one names no webhook (4046). */
@Injectable()
class WebhookIdPipe implements PipeTransform<string, string> {
  transform(raw: string): string {
    const id = toSafeId(raw);
    if (!isSafeId(id)) throw new ApiError(ErrorCatalogue.WEBHOOK_NOT_FOUND);
    return String(id);
  }
}

const ApiWebhookIdParam = () =>
  ApiParam({ name: 'webhook_id', description: 'The webhook\'s id (webhook_id in the list); anything else is 4046', example: 7, schema: { type: 'integer', format: 'int64', minimum: 1 } });

const ONE_WEBHOOK: ('PARTNER_NOT_FOUND' | 'WEBHOOK_NOT_FOUND')[] = ['PARTNER_NOT_FOUND', 'WEBHOOK_NOT_FOUND'];

/** A partner's webhooks (contract §7): registered, listed, deleted, their secrets rotated, events sent again. */
@ApiTags('admin')
@RateLimit('admin')
@Roles('admin')
@ApiSourceParam()
@Controller('admin/partners/:source/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @JsonBody()
  @HttpCode(200)
  @ApiEnvelope(
    Schemas.CreatedWebhook,
    'Register an endpoint for the partner\'s events, signed with a new secret (shown once). The URL must be https:// and resolve to public addresses only (4000 says why not)',
    ['PARTNER_NOT_FOUND'],
  )
  create(@CurrentActor() actor: AdminActor, @Param('source') source: string, @Body() body: CreateWebhookDto, @Query() _query: NoQuery) {
    return this.webhooks.create(actor, source, body.url, body.description ?? null);
  }

  @Get()
  @ApiEnvelope(Schemas.WebhookList, 'List the partner\'s webhooks with their last delivery and the deliveries pending', ['PARTNER_NOT_FOUND'])
  list(@Param('source') source: string, @Query() _query: NoQuery) {
    return this.webhooks.list(source);
  }

  @Delete(':webhook_id')
  @ApiWebhookIdParam()
  @ApiEnvelope(Schemas.DeletedWebhook, 'Delete a webhook: nothing more is sent to it, its pending deliveries dropped', ONE_WEBHOOK)
  delete(@CurrentActor() actor: AdminActor, @Param('source') source: string, @Param('webhook_id', WebhookIdPipe) id: string, @Query() _query: NoQuery) {
    return this.webhooks.delete(actor, source, id);
  }

  @Post(':webhook_id/rotate-secret')
  @JsonBody()
  @HttpCode(200)
  @ApiWebhookIdParam()
  @ApiBody({ type: NoBody, required: false, description: 'No body, or an empty object' })
  @ApiEnvelope(Schemas.RotatedSecret, 'A new signing secret (shown once); the previous one still signs, beside it, for 24 hours', ONE_WEBHOOK)
  rotateSecret(
    @CurrentActor() actor: AdminActor,
    @Param('source') source: string,
    @Param('webhook_id', WebhookIdPipe) id: string,
    @Query() _query: NoQuery,
    @Body() _body: NoBody,
  ) {
    return this.webhooks.rotateSecret(actor, source, id);
  }

  @Get(':webhook_id/redeliverable')
  @ApiWebhookIdParam()
  @ApiEnvelope(Schemas.RedeliveryCount, 'How many events a redeliver with this `after` would queue now (nothing is queued): for a confirmation before it', ONE_WEBHOOK)
  redeliverable(@Param('source') source: string, @Param('webhook_id', WebhookIdPipe) id: string, @Query() query: RedeliverDto) {
    return this.webhooks.redeliverable(source, id, query.after);
  }

  @Post(':webhook_id/redeliver')
  @JsonBody()
  @HttpCode(200)
  @ApiWebhookIdParam()
  @ApiEnvelope(
    Schemas.RedeliveryQueued,
    `Send the partner's events after \`after\` to this webhook again, oldest first, ${REDELIVER_LIMIT.toLocaleString('en')} at most a call (for more, call again with the last sequence received)`,
    ONE_WEBHOOK,
  )
  redeliver(@CurrentActor() actor: AdminActor, @Param('source') source: string, @Param('webhook_id', WebhookIdPipe) id: string, @Body() body: RedeliverDto, @Query() _query: NoQuery) {
    return this.webhooks.redeliver(actor, source, id, body.after);
  }
}
