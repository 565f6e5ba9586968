import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { PartnerKeysService } from '../auth/partner-keys.service';
import { ChangeLog } from '../changes/change-log';
import { type MarketKey, RefusalRevealingChange } from '../changes/revealed-change';
import { ApiError, ErrorCatalogue, type ErrorEntry } from '../common/error-catalogue';
import { Sql, sql, type Statement, type Transaction } from '../database/sql';
import { MarketsService } from '../markets/markets.service';
import { MetricsService } from '../observability/metrics.service';
import { assertFileable } from './dispute-state';
import { DisputesRepository } from './disputes.repository';
import type { SubmitDisputeDto } from './submit-dispute.dto';

/** The answers remembered under an Idempotency-Key (contract §8), by the names idempotency_keys.outcome keeps. */
const REMEMBERED_REFUSALS: Record<string, ErrorEntry> = {
  market_not_found: ErrorCatalogue.MARKET_NOT_FOUND,
  other_source: ErrorCatalogue.MARKET_OTHER_SOURCE,
  already_disputed: ErrorCatalogue.MARKET_ALREADY_DISPUTED,
  not_resolved: ErrorCatalogue.MARKET_NOT_RESOLVED,
};
const FILED = 'filed';

/** A filing's answer, and whether it is one remembered under its idempotency key. */
export interface FilingAnswer {
  answer: { dispute_id: number } | ApiError;
  replayed: boolean;
}

export interface IdempotencyKey {
  key: string;
  requestHash: string;
}

/** What one transaction decided: a dispute filed now (its event) or before (a replay), or a refusal; `market` when the answer reveals a committed change. */
type Outcome = { disputeId: string; market?: MarketKey; eventId?: string } | { refusal: ApiError; market?: MarketKey };

const FORGET_INTERVAL_MS = 60 * 60_000;

/** submit_dispute (contract §2 steps 3–6, §8): in one transaction, the partner's key held, the market row locked. */
@Injectable()
export class DisputeFiling implements OnApplicationBootstrap, OnApplicationShutdown {
  private forgetting: NodeJS.Timeout | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly repository: DisputesRepository,
    private readonly partnerKeys: PartnerKeysService,
    private readonly markets: MarketsService,
    private readonly changes: ChangeLog,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    this.forgetting = setInterval(() => void this.forgetIdempotencyKeys().catch(() => undefined), FORGET_INTERVAL_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.forgetting);
  }

  /** Answered once every instance has the change it tells of (a first filing, a replay, 4091): ChangeLog.written. */
  async submit(partner: AuthenticatedPartner, input: SubmitDisputeDto, idempotency?: IdempotencyKey): Promise<FilingAnswer> {
    const { outcome, replayed } = await this.sql.transaction((tx) => this.decide(tx, partner, input, idempotency));
    if (!('refusal' in outcome) && outcome.eventId !== undefined) {
      await this.changes.written(outcome.market!.source, outcome.market!.slug, outcome.eventId);
      this.metrics.disputesFiled.inc();
    } else if (outcome.market) {
      await this.changes.acknowledge(outcome.market);
    }
    return { answer: 'refusal' in outcome ? outcome.refusal : { dispute_id: Number(outcome.disputeId) }, replayed };
  }

  /** Forgets idempotency records older than their 24 hours; how many. */
  async forgetIdempotencyKeys(): Promise<number> {
    let total = 0;
    for (;;) {
      const forgotten = await this.repository.forgetIdempotencyKeys();
      total += forgotten;
      if (forgotten === 0) return total;
    }
  }

  // The key's hold rides on the first statement (the Idempotency-Key's hold, else the market's lock): a round trip is
  // most of a filing's cost (docs/architecture.md, "Hand-tuned statements").
  private async decide(tx: Transaction, partner: AuthenticatedPartner, input: SubmitDisputeDto, idempotency?: IdempotencyKey) {
    const keyHold = this.partnerKeys.keyHold(partner.keyId);
    if (!idempotency) return { outcome: await this.file(tx, partner, input, keyHold), replayed: false };
    const { passed, held } = await this.repository.holdIdempotencyKey(tx, partner.source, idempotency.key, keyHold);
    if (!passed) return { outcome: refused(ErrorCatalogue.API_KEY_INVALID), replayed: false };
    if (!held) return { outcome: refused(ErrorCatalogue.IDEMPOTENCY_KEY_IN_PROGRESS), replayed: false };
    const remembered = await this.repository.remembered(tx, partner.source, idempotency.key);
    if (remembered && remembered.requestHash !== idempotency.requestHash) return { outcome: refused(ErrorCatalogue.IDEMPOTENCY_KEY_REUSED), replayed: false };
    if (remembered) return { outcome: await this.replay(tx, remembered.outcome, remembered.disputeId, input), replayed: true };
    const outcome = await this.file(tx, partner, input, sql`true`);
    await this.repository.remember(tx, partner.source, idempotency.key, {
      requestHash: idempotency.requestHash,
      outcome: 'refusal' in outcome ? outcomeName(outcome.refusal) : FILED,
      disputeId: 'refusal' in outcome ? null : outcome.disputeId,
    });
    return { outcome, replayed: false };
  }

  /** Steps 3–6 on the market locked once `keyHold` passed (assertFileable); uq_disputes_market_id has the last word on one dispute per market. */
  private async file(tx: Transaction, partner: AuthenticatedPartner, input: SubmitDisputeDto, keyHold: Statement): Promise<Outcome> {
    const marketId = String(input.market_id);
    const { passed, market } = await this.markets.lockMarketAfter(tx, marketId, keyHold);
    if (!passed) return refused(ErrorCatalogue.API_KEY_INVALID);
    if (!market) return refused(ErrorCatalogue.MARKET_NOT_FOUND);
    try {
      assertFileable(market, partner.source);
    } catch (error) {
      return refusal(error);
    }
    const newDispute = {
      marketId,
      submitterId: input.submitter_id,
      submitterName: input.submitter_name,
      submitterSelection: input.submitter_selection,
      reasonText: input.reason_text,
      submittedAt: input.submitted_at ?? new Date(),
    };
    const disputeId = await this.repository.insert(tx, newDispute, (marketIds) => this.markets.markDisputed(marketIds));
    if (disputeId === null) return { refusal: new ApiError(ErrorCatalogue.MARKET_ALREADY_DISPUTED), market };
    return { disputeId, market, eventId: await this.changes.append(tx, 'dispute.filed', marketId) };
  }

  /** A remembered answer, told again; one that says a dispute exists waits for that change as its first telling did. */
  private async replay(tx: Transaction, outcome: string, disputeId: string | null, input: SubmitDisputeDto): Promise<Outcome> {
    const reveals = outcome === FILED || outcome === 'already_disputed';
    const market = reveals ? await this.markets.keyOf(tx, String(input.market_id)) : undefined;
    if (outcome === FILED) return { disputeId: disputeId!, market };
    return { refusal: new ApiError(REMEMBERED_REFUSALS[outcome] ?? ErrorCatalogue.INTERNAL), market };
  }
}

function refused(entry: ErrorEntry): Outcome {
  return { refusal: new ApiError(entry) };
}

/** A refusal the rules threw, as an outcome; anything else is no refusal and is thrown on. */
function refusal(error: unknown): Outcome & { refusal: ApiError } {
  if (!(error instanceof ApiError)) throw error;
  return { refusal: error, market: error instanceof RefusalRevealingChange ? error.market : undefined };
}

function outcomeName(error: ApiError): string {
  const name = Object.keys(REMEMBERED_REFUSALS).find((candidate) => REMEMBERED_REFUSALS[candidate].code === error.code);
  if (!name) throw new Error(`a filing refused ${error.code}, which is not remembered`);
  return name;
}
