import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change to what get_public_market returns is announced on `market_changed` at commit, by
 * triggers so that no write path can forget (the change log replaced them: migration ChangeLog).
 */
export class PublicMarketChanges1763900000000 implements MigrationInterface {
  name = 'PublicMarketChanges1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION notify_market_changed(market_source text, market_slug text) RETURNS void LANGUAGE sql AS $$
        SELECT pg_notify('market_changed',
          json_build_object('source', market_source, 'slug', market_slug, 'txid', txid_current()::text)::text)
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION markets_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN PERFORM notify_market_changed(OLD.source, OLD.slug); END IF;
        IF TG_OP <> 'DELETE' THEN PERFORM notify_market_changed(NEW.source, NEW.slug); END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION market_children_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM notify_market_changed(m.source, m.slug) FROM markets m
          WHERE m.id IN (CASE WHEN TG_OP <> 'INSERT' THEN OLD.market_id END, CASE WHEN TG_OP <> 'DELETE' THEN NEW.market_id END);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER tr_markets_changed AFTER INSERT OR UPDATE OR DELETE ON markets
      FOR EACH ROW EXECUTE FUNCTION markets_changed()`);
    for (const table of ['proofs', 'disputes']) {
      await queryRunner.query(`
        CREATE TRIGGER tr_${table}_changed AFTER INSERT OR UPDATE OR DELETE ON ${table}
        FOR EACH ROW EXECUTE FUNCTION market_children_changed()`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['disputes', 'proofs', 'markets']) {
      await queryRunner.query(`DROP TRIGGER tr_${table}_changed ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION market_children_changed()`);
    await queryRunner.query(`DROP FUNCTION markets_changed()`);
    await queryRunner.query(`DROP FUNCTION notify_market_changed(text, text)`);
  }
}
