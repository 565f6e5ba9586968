import { Body, Controller, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentPartner, PartnerAuth } from '../auth/partner-auth.decorator';
import { NoQuery } from '../common/no-fields';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { DisputesService } from './disputes.service';
import { SubmitDisputeDto } from './submit-dispute.dto';
import { RateLimit } from '../observability/rate-limits';
import { ApiEnvelope } from '../docs/api-envelope.decorator';
import { DisputeSubmitted } from '../docs/responses.schema';

@ApiTags('partner')
@RateLimit('dispute')
@Controller('oracle/markets/dispute')
export class DisputesController {
  constructor(private readonly disputes: DisputesService) {}

  /** submit_dispute (spec §4.2). */
  @Post('submit')
  @HttpCode(200)
  @PartnerAuth()
  @ApiEnvelope(DisputeSubmitted, 'File a dispute against a resolved market of your source', [
    'API_KEY_REQUIRED',
    'API_KEY_INVALID',
    'MALFORMED_JSON',
    'PAYLOAD_TOO_LARGE',
    'INVALID_REQUEST',
    'MARKET_NOT_FOUND',
    'MARKET_OTHER_SOURCE',
    'MARKET_NOT_RESOLVED',
    'MARKET_ALREADY_DISPUTED',
  ])
  async submitDispute(
    @CurrentPartner() partner: AuthenticatedPartner,
    @Body() body: SubmitDisputeDto,
    @Query() _query: NoQuery,
  ): Promise<{ dispute_id: number }> {
    return this.disputes.submitDispute(partner, body);
  }
}
