import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A partner's keys are listed newest first, 20 with the partner and a page at a time on their
 * own: read backwards from this index, a page costs its own entries however many keys the
 * partner has. It serves lookups by partner_id too, so it replaces ix_api_keys_partner_id.
 */
export class PartnerKeysNewestFirst1764900000000 implements MigrationInterface {
  name = 'PartnerKeysNewestFirst1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX ix_api_keys_partner_keys ON api_keys (partner_id, id)');
    await queryRunner.query('DROP INDEX ix_api_keys_partner_id');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX ix_api_keys_partner_id ON api_keys (partner_id)');
    await queryRunner.query('DROP INDEX ix_api_keys_partner_keys');
  }
}
