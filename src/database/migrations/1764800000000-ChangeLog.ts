import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PublicMarketChanges1763900000000 } from './1763900000000-PublicMarketChanges';
import { FileDisputeFunction1764000000000 } from './1764000000000-FileDisputeFunction';
import { fileDisputeHolding } from './1764500000000-FairCredentialHolds';

/**
 * The change log (docs/architecture.md) and filings' idempotency keys. NOTIFY's triggers and the older
 * file_dispute overloads go; the current functions are applied after the migrations (src/schema.ts).
 */
export class ChangeLog1764800000000 implements MigrationInterface {
  name = 'ChangeLog1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE market_events (
        id bigserial PRIMARY KEY,
        sequence bigint,
        txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        type text NOT NULL,
        source text NOT NULL,
        slug text NOT NULL,
        market_id bigint NOT NULL,
        market json NOT NULL,
        occurred_at timestamptz NOT NULL DEFAULT now(),
        sequenced_lsn pg_lsn,
        CONSTRAINT uq_market_events_sequence UNIQUE (sequence),
        CONSTRAINT ck_market_events_type CHECK (type IN ('market.created', 'market.resolved', 'dispute.filed', 'dispute.decided'))
      )`);
    await queryRunner.query('CREATE INDEX ix_market_events_unsequenced ON market_events (id) WHERE sequence IS NULL');
    await queryRunner.query('CREATE INDEX ix_market_events_source_sequence ON market_events (source, sequence)');
    await queryRunner.query('CREATE INDEX ix_market_events_occurred_at ON market_events (occurred_at)');
    await queryRunner.query(`
      CREATE TABLE change_log_head (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        last_sequence bigint NOT NULL,
        last_lsn pg_lsn,
        deleted_through bigint NOT NULL
      )`);
    await queryRunner.query('INSERT INTO change_log_head (last_sequence, deleted_through) VALUES (0, 0)');
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        source text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        outcome text NOT NULL,
        dispute_id bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (source, key)
      )`);
    await queryRunner.query('CREATE INDEX ix_idempotency_keys_created_at ON idempotency_keys (created_at)');
    for (const table of ['disputes', 'proofs', 'markets']) await queryRunner.query(`DROP TRIGGER tr_${table}_changed ON ${table}`);
    await queryRunner.query('DROP FUNCTION market_children_changed(), markets_changed(), notify_market_changed(text, text)');
    await queryRunner.query('DROP FUNCTION file_dispute(bigint, text, text, text, text, text, timestamptz, bigint)');
    await queryRunner.query('DROP FUNCTION file_dispute(bigint, text, text, text, text, text, timestamptz)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION IF EXISTS file_dispute(bigint, text, text, text, text, text, timestamptz, bigint, text, text)');
    await queryRunner.query('DROP FUNCTION IF EXISTS change_log_poll(bigint, integer), append_market_event(text, bigint), market_item(markets)');
    await new FileDisputeFunction1764000000000().up(queryRunner);
    await queryRunner.query(fileDisputeHolding('held := hold_partner_key(p_key_id);').replace('CREATE OR REPLACE FUNCTION', 'CREATE FUNCTION'));
    await new PublicMarketChanges1763900000000().up(queryRunner);
    await queryRunner.query('DROP TABLE idempotency_keys, change_log_head, market_events');
  }
}
