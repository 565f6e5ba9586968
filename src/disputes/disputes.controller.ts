import { Body, Controller, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { ServiceRequest } from '../common/request-context';
import { idempotencyKeyOf, requestHashOf } from './idempotency-key';
import { CurrentPartner, PartnerKey } from '../auth/access.decorators';
import { NoQuery } from '../common/no-fields';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { DisputeSubmitted } from './disputes.schema';
import { DisputeFiling } from './dispute-filing';
import { SubmitDisputeDto } from './submit-dispute.dto';
import { RateLimit } from '../rate-limits/rate-limits';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import { JsonBody } from '../edge/json-body.interceptor';

@ApiTags('partner')
@RateLimit('dispute')
@Controller('oracle/markets/dispute')
export class DisputesController {
  constructor(private readonly filing: DisputeFiling) {}

  /** submit_dispute (spec §4.2). */
  @Post('submit')
  @JsonBody()
  @HttpCode(200)
  @PartnerKey()
  @ApiEnvelope(DisputeSubmitted, 'File a dispute against a resolved market of your source', [
    'MARKET_NOT_FOUND',
    'MARKET_OTHER_SOURCE',
    'MARKET_NOT_RESOLVED',
    'MARKET_ALREADY_DISPUTED',
    'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_KEY_IN_PROGRESS',
  ])
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Your key for this filing (1-255 printable ASCII characters), remembered 24 h for your source: the same body again ' +
      'gets the first answer again, with `idempotent-replayed: true`; another body, 4095; while the first is in progress, 4096.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
  })
  async submitDispute(
    @CurrentPartner() partner: AuthenticatedPartner,
    @Body() body: SubmitDisputeDto,
    @Query() _query: NoQuery,
    @Req() req: ServiceRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ dispute_id: number }> {
    const key = idempotencyKeyOf(req.headersDistinct['idempotency-key']);
    const { answer, replayed } = await this.filing.submit(partner, body, key === undefined ? undefined : { key, requestHash: requestHashOf(req.body) });
    if (replayed) res.setHeader('idempotent-replayed', 'true');
    if (answer instanceof Error) throw answer;
    return answer;
  }
}
