import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (contract §7, docs/architecture.md): partners' endpoints with their signing secrets,
 * one delivery row per (endpoint, event) written by the fan-out, whose progress the head keeps.
 * The delivery queue itself is pg-boss's schema, installed after the migrations (webhooks/delivery-queue.ts).
 */
export class Webhooks1765000000000 implements MigrationInterface {
  name = 'Webhooks1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhooks (
        id bigserial PRIMARY KEY,
        source text NOT NULL REFERENCES partners (source),
        url text NOT NULL,
        description text,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_until timestamptz,
        after_sequence bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        disabled_at timestamptz,
        deleted_at timestamptz,
        last_delivery_at timestamptz,
        last_delivery_status integer,
        last_delivery_error text
      )`);
    await queryRunner.query('CREATE INDEX ix_webhooks_source ON webhooks (source, id) WHERE deleted_at IS NULL');
    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        webhook_id bigint NOT NULL REFERENCES webhooks (id),
        sequence bigint NOT NULL,
        state text NOT NULL DEFAULT 'pending',
        enqueued boolean NOT NULL DEFAULT false,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        CONSTRAINT ck_webhook_deliveries_state CHECK (state IN ('pending', 'delivered', 'given_up', 'dropped'))
      )`);
    await queryRunner.query('CREATE INDEX ix_webhook_deliveries_to_enqueue ON webhook_deliveries (id) WHERE NOT enqueued');
    await queryRunner.query("CREATE INDEX ix_webhook_deliveries_pending ON webhook_deliveries (webhook_id) WHERE state = 'pending'");
    await queryRunner.query('CREATE INDEX ix_webhook_deliveries_finished_at ON webhook_deliveries (finished_at)');
    await queryRunner.query(`
      CREATE TABLE webhook_fanout_head (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        last_sequence bigint NOT NULL
      )`);
    await queryRunner.query('INSERT INTO webhook_fanout_head (last_sequence) SELECT last_sequence FROM change_log_head');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE webhook_fanout_head');
    await queryRunner.query('DROP TABLE webhook_deliveries');
    await queryRunner.query('DROP TABLE webhooks');
  }
}
