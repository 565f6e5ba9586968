/**
 * The indexes entity metadata cannot express (on an expression, or partial), as PostgreSQL prints them. Their entities
 * declare them by name with `synchronize: false`, so TypeORM's schema diff leaves them alone; the drift test
 * (test/schema-drift.e2e-spec.ts) holds the database to this list instead.
 */
export const UNSYNCHRONIZED_INDEXES: Readonly<Record<string, string>> = {
  uq_partners_source_skeleton: 'CREATE UNIQUE INDEX uq_partners_source_skeleton ON public.partners USING btree (md5(source_skeleton))',
  uq_partners_name_skeleton: 'CREATE UNIQUE INDEX uq_partners_name_skeleton ON public.partners USING btree (md5(name_skeleton))',
  uq_reviewers_name: 'CREATE UNIQUE INDEX uq_reviewers_name ON public.reviewers USING btree (lower(name))',
  uq_reviewers_name_skeleton: 'CREATE UNIQUE INDEX uq_reviewers_name_skeleton ON public.reviewers USING btree (md5(name_skeleton))',
  uq_reviewers_name_written_skeleton:
    'CREATE UNIQUE INDEX uq_reviewers_name_written_skeleton ON public.reviewers USING btree (md5(name_written_skeleton))',
  uq_markets_source_slug_skeleton: 'CREATE UNIQUE INDEX uq_markets_source_slug_skeleton ON public.markets USING btree (source, md5(slug_skeleton))',
  ix_disputes_queue: "CREATE INDEX ix_disputes_queue ON public.disputes USING btree (((status = 'closed'::text)), id)",
  ix_market_events_unsequenced: 'CREATE INDEX ix_market_events_unsequenced ON public.market_events USING btree (id) WHERE (sequence IS NULL)',
  ix_webhooks_source: 'CREATE INDEX ix_webhooks_source ON public.webhooks USING btree (source, id) WHERE (deleted_at IS NULL)',
  ix_webhook_deliveries_pending:
    "CREATE INDEX ix_webhook_deliveries_pending ON public.webhook_deliveries USING btree (webhook_id) WHERE (state = 'pending'::text)",
  ix_webhook_deliveries_to_enqueue: 'CREATE INDEX ix_webhook_deliveries_to_enqueue ON public.webhook_deliveries USING btree (id) WHERE (NOT enqueued)',
};
