import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Partners and their keys, markets with proofs, and disputes (one per market). */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE partners (
        id bigserial PRIMARY KEY,
        source text NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_partners_source UNIQUE (source),
        CONSTRAINT ck_partners_source_not_blank CHECK (length(btrim(source)) > 0)
      )`);
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id bigserial PRIMARY KEY,
        partner_id bigint NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
        key_hash text NOT NULL,
        prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        last_used_at timestamptz,
        CONSTRAINT uq_api_keys_key_hash UNIQUE (key_hash),
        CONSTRAINT ck_api_keys_key_hash_sha256 CHECK (key_hash ~ '^[0-9a-f]{64}$')
      )`);
    await queryRunner.query(`CREATE INDEX ix_api_keys_partner_id ON api_keys (partner_id)`);
    await queryRunner.query(`
      CREATE TABLE markets (
        id bigserial PRIMARY KEY,
        source text NOT NULL REFERENCES partners (source),
        slug text NOT NULL,
        status text NOT NULL DEFAULT 'monitoring',
        verdict text,
        confidence text,
        reasoning text,
        resolved_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_markets_source_slug UNIQUE (source, slug),
        CONSTRAINT ck_markets_status CHECK (status IN ('monitoring', 'resolved', 'disputed', 'closed')),
        CONSTRAINT ck_markets_confidence
          CHECK (confidence IS NULL OR confidence IN ('VERY_HIGH', 'HIGH', 'MEDIUM', 'LOW', 'VERY_LOW')),
        CONSTRAINT ck_markets_resolution_complete CHECK (
          status = 'monitoring'
          OR (verdict IS NOT NULL AND confidence IS NOT NULL AND reasoning IS NOT NULL AND resolved_at IS NOT NULL)
        ),
        CONSTRAINT ck_markets_slug_not_blank CHECK (length(slug) > 0)
      )`);
    await queryRunner.query(`
      CREATE TABLE proofs (
        id bigserial PRIMARY KEY,
        market_id bigint NOT NULL REFERENCES markets (id) ON DELETE CASCADE,
        position smallint NOT NULL,
        chain text NOT NULL,
        tx_hash text NOT NULL,
        CONSTRAINT uq_proofs_market_position UNIQUE (market_id, position),
        CONSTRAINT ck_proofs_chain CHECK (chain IN ('base', 'bsc'))
      )`);
    await queryRunner.query(`
      CREATE TABLE disputes (
        id bigserial PRIMARY KEY,
        market_id bigint NOT NULL REFERENCES markets (id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'open',
        submitter_id text NOT NULL,
        submitter_name text NOT NULL,
        submitter_selection text NOT NULL,
        reason_text text NOT NULL,
        submitted_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        decision_type text,
        partner_final_verdict text,
        decision_reason text,
        decided_at timestamptz,
        decided_by text,
        CONSTRAINT uq_disputes_market_id UNIQUE (market_id),
        CONSTRAINT ck_disputes_status CHECK (status IN ('open', 'closed')),
        CONSTRAINT ck_disputes_decision_type CHECK (decision_type IS NULL OR decision_type IN ('keep', 'override')),
        CONSTRAINT ck_disputes_decision_when_closed CHECK (
          (status = 'open' AND decision_type IS NULL AND decided_at IS NULL)
          OR (status = 'closed' AND decision_type IS NOT NULL AND partner_final_verdict IS NOT NULL
              AND decision_reason IS NOT NULL AND decided_at IS NOT NULL AND decided_by IS NOT NULL)
        )
      )`);
    // The review queue reads disputes by status, oldest first.
    await queryRunner.query(`CREATE INDEX ix_disputes_status_created ON disputes (status, created_at, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE disputes`);
    await queryRunner.query(`DROP TABLE proofs`);
    await queryRunner.query(`DROP TABLE markets`);
    await queryRunner.query(`DROP TABLE api_keys`);
    await queryRunner.query(`DROP TABLE partners`);
  }
}
