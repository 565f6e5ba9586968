import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CurrentPartner, PartnerAuth } from '../auth/partner-auth.decorator';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { DisputesService } from './disputes.service';
import { SubmitDisputeDto } from './submit-dispute.dto';
import { RateLimit } from '../observability/rate-limits';

@RateLimit('dispute')
@Controller('oracle/markets/dispute')
export class DisputesController {
  constructor(private readonly disputes: DisputesService) {}

  /** submit_dispute (spec §4.2). */
  @Post('submit')
  @HttpCode(200)
  @PartnerAuth()
  async submitDispute(
    @CurrentPartner() partner: AuthenticatedPartner,
    @Body() body: SubmitDisputeDto,
  ): Promise<{ dispute_id: number }> {
    return this.disputes.submitDispute(partner, body);
  }
}
