import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentPartner, PartnerKey } from '../../auth/access.decorators';
import type { AuthenticatedPartner } from '../../auth/partner-keys.service';
import type { ServiceRequest } from '../../common/request-context';
import { ApiEnvelope } from '../../openapi/api-envelope.decorator';
import { RateLimit } from '../../rate-limits/rate-limits';
import { ChangesFeed } from './changes-feed';
import { ChangesPage } from './changes.schema';
import { ChangesQueryDto } from './changes-query.dto';

@ApiTags('partner')
@RateLimit('changes')
@Controller('oracle/markets/changes')
export class ChangesController {
  constructor(private readonly feed: ChangesFeed) {}

  /** The changes feed (contract §7): your source's events after `after`, in ascending sequence. */
  @Get()
  @PartnerKey()
  @ApiEnvelope(ChangesPage, "Your source's market events after a sequence, at once or by long polling", ['CHANGES_CURSOR_EXPIRED'])
  read(@CurrentPartner() partner: AuthenticatedPartner, @Query() query: ChangesQueryDto, @Req() req: ServiceRequest) {
    // A long poll whose client left is over: its place among the held ones is free at once. One that left while the
    // guards ran had its 'close' already: it holds no place and wakes to no read.
    const left = new AbortController();
    if (req.res!.closed) left.abort();
    else req.res!.once('close', () => left.abort());
    return this.feed.read(partner, query, req.context, left.signal);
  }
}
