import { Injectable } from '@nestjs/common';
import { PartnerKeysService } from '../auth/partner-keys.service';
import type { AdminActor } from '../auth/reviewers.service';
import { parseRfc3339 } from '../common/rfc3339';
import type { ResolveMarketDto } from './market-admin.dto';
import { MarketWrites } from './market-writes';
import type { MarketItem } from './market-item.schema';
import { MarketsService } from './markets.service';

/** The admin API's writes to markets: created in `monitoring`, then resolved. */
@Injectable()
export class MarketAdmin {
  constructor(
    private readonly markets: MarketsService,
    private readonly partnerKeys: PartnerKeysService,
    private readonly marketWrites: MarketWrites,
  ) {}

  createMarket(actor: AdminActor, source: string, slug: string): Promise<MarketItem> {
    return this.marketWrites.record(actor, 'market.created', async (tx) => {
      await this.partnerKeys.requirePartner(tx, source);
      const id = await this.markets.createMarket(tx, source, slug);
      const market = await this.markets.getMarketItem(tx, id);
      return { result: market, market, audit: { action: 'market.created', target: `market:${id}`, details: { source, slug: market.slug } } };
    });
  }

  resolveMarket(actor: AdminActor, id: string, body: ResolveMarketDto): Promise<MarketItem> {
    return this.marketWrites.record(actor, 'market.resolved', async (tx) => {
      await this.markets.resolveMarket(tx, id, {
        verdict: body.verdict,
        confidence: body.confidence,
        reasoning: body.reasoning,
        proofs: body.proofs,
        resolvedAt: parseRfc3339(body.resolved_at) ?? new Date(),
      });
      const market = await this.markets.getMarketItem(tx, id);
      return {
        result: market,
        market,
        audit: { action: 'market.resolved', target: `market:${id}`, details: { verdict: body.verdict, confidence: body.confidence, proofs: body.proofs.length } },
      };
    });
  }
}
