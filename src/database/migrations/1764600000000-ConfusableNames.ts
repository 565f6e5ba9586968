import type { MigrationInterface, QueryRunner } from 'typeorm';
import { skeleton, skeletonIgnoringCase, toStored } from '../../common/confusable-skeleton';

/** The master key's name, as it was when this migration was written. */
const MASTER = 'master';
const BATCH = 1000;

/**
 * Names compare as people read them (contract §10): a skeleton beside each reviewer name, partner
 * source and name, and market slug, computed here as the application does. Existing twins: see
 * the functions below; down() drops the columns, and does not undo renames or NFC.
 */
export class ConfusableNames1764600000000 implements MigrationInterface {
  name = 'ConfusableNames1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE reviewers ADD COLUMN name_skeleton text`);
    await queryRunner.query(`ALTER TABLE partners ADD COLUMN source_skeleton text, ADD COLUMN name_skeleton text`);
    await queryRunner.query(`ALTER TABLE markets ADD COLUMN slug_skeleton text`);
    // On the md5: a skeleton can outgrow a btree entry (one ﷺ is 18 letters).
    await queryRunner.query(`CREATE UNIQUE INDEX uq_reviewers_name_skeleton ON reviewers (md5(name_skeleton))`);
    await queryRunner.query(`CREATE UNIQUE INDEX uq_partners_source_skeleton ON partners (md5(source_skeleton))`);
    await queryRunner.query(`CREATE UNIQUE INDEX uq_partners_name_skeleton ON partners (md5(name_skeleton))`);
    await queryRunner.query(`CREATE UNIQUE INDEX uq_markets_source_slug_skeleton ON markets (source, md5(slug_skeleton))`);
    await nameReviewers(queryRunner);
    await nameInBatches(queryRunner, 'partners', namePartners);
    // A skeleton changes no public record: nothing to announce to the instances' caches.
    await queryRunner.query(`ALTER TABLE markets DISABLE TRIGGER tr_markets_changed`);
    await nameInBatches(queryRunner, 'markets', nameMarkets);
    await queryRunner.query(`ALTER TABLE markets ENABLE TRIGGER tr_markets_changed`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Each index goes with its column.
    await queryRunner.query(`ALTER TABLE markets DROP COLUMN slug_skeleton`);
    await queryRunner.query(`ALTER TABLE partners DROP COLUMN source_skeleton, DROP COLUMN name_skeleton`);
    await queryRunner.query(`ALTER TABLE reviewers DROP COLUMN name_skeleton`);
  }
}

interface Reviewer {
  id: string;
  name: string;
  active: boolean;
}

/**
 * Names in NFC; of accounts whose names read the same, or as master, the one in use keeps its
 * name (as in ReviewerNamesIgnoreCase) and the others become "<name> #<id>" (taken too: rollback).
 */
async function nameReviewers(queryRunner: QueryRunner): Promise<void> {
  const rows: Reviewer[] = await queryRunner.query('SELECT id, name, revoked_at IS NULL AS active FROM reviewers');
  const groups = new Map<string, Reviewer[]>();
  for (const row of rows) {
    const key = skeletonIgnoringCase(toStored(row.name));
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const renamed: [string, string][] = [];
  const kept: [string, string][] = [];
  for (const [key, group] of groups) {
    // The one in use keeps the name: the newest not revoked, else the newest.
    group.sort((a, b) => Number(b.active) - Number(a.active) || Number(BigInt(b.id) - BigInt(a.id)));
    for (const [rank, row] of group.entries()) {
      const name = toStored(row.name);
      if (rank > 0 || key === skeletonIgnoringCase(MASTER)) renamed.push([row.id, `${name} #${row.id}`]);
      else kept.push([row.id, name]);
    }
  }
  // The renamed first: a kept name put in NFC may be what a renamed one was.
  for (const names of [renamed, kept]) {
    for (let start = 0; start < names.length; start += BATCH) {
      const batch = names.slice(start, start + BATCH);
      await queryRunner.query(
        `UPDATE reviewers r SET name = u.name, name_skeleton = u.skeleton
        FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, name, skeleton) WHERE r.id = u.id`,
        [batch.map(([id]) => id), batch.map(([, name]) => name), batch.map(([, name]) => skeletonIgnoringCase(name))],
      );
    }
  }
}

/** Runs `name` on the rows of `table` in id order, BATCH at a time. */
async function nameInBatches(queryRunner: QueryRunner, table: string, name: (queryRunner: QueryRunner, rows: Record<string, string>[]) => Promise<void>) {
  for (let after = '0'; ; ) {
    const rows: Record<string, string>[] = await queryRunner.query(`SELECT * FROM ${table} WHERE id > $1 ORDER BY id LIMIT ${BATCH}`, [after]);
    if (rows.length === 0) return;
    await name(queryRunner, rows);
    after = rows[rows.length - 1].id;
  }
}

/** Of `skeletons`, those an earlier row of `table` holds in `column` (within its `source`, if given). */
async function held(queryRunner: QueryRunner, table: string, column: string, skeletons: string[], sources?: string[]): Promise<Set<string>> {
  const scope = sources ? 'AND t.source = k.source' : '';
  const rows: { at: string }[] = await queryRunner.query(
    `SELECT k.at FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(skeleton, source, at)
    WHERE EXISTS (SELECT 1 FROM ${table} t WHERE md5(t.${column}) = md5(k.skeleton) AND t.${column} = k.skeleton ${scope})`,
    [skeletons, sources ?? skeletons.map(() => null)],
  );
  return new Set(rows.map((row) => `${sources ? sources[Number(row.at) - 1] : ''}\u0000${skeletons[Number(row.at) - 1]}`));
}

/**
 * Sources stay as stored (partners send them): a twin's skeleton is NULL, the oldest holds it.
 * Names go to NFC; a name reading as an older partner's becomes "<name> #<id>".
 */
async function namePartners(queryRunner: QueryRunner, rows: Record<string, string>[]): Promise<void> {
  const sources = rows.map((row) => skeleton(row.source));
  const names = rows.map((row) => toStored(row.name));
  const takenSources = await held(queryRunner, 'partners', 'source_skeleton', sources);
  const takenNames = await held(queryRunner, 'partners', 'name_skeleton', names.map(skeleton));
  const sourceSkeletons = sources.map((source) => claim(takenSources, '', source));
  const nameSkeletons = names.map((name) => claim(takenNames, '', skeleton(name)));
  names.forEach((name, at) => {
    if (nameSkeletons[at] === null) names[at] = `${name} #${rows[at].id}`;
  });
  await queryRunner.query(
    `UPDATE partners p SET name = u.name, source_skeleton = u.source_skeleton, name_skeleton = u.name_skeleton
    FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS u(id, name, source_skeleton, name_skeleton) WHERE p.id = u.id`,
    [rows.map((row) => row.id), names, sourceSkeletons, names.map(skeleton)],
  );
}

/** Slugs stay as stored (partners send them): of twins in one source, the oldest holds the skeleton. */
async function nameMarkets(queryRunner: QueryRunner, rows: Record<string, string>[]): Promise<void> {
  const sources = rows.map((row) => row.source);
  const slugs = rows.map((row) => skeleton(row.slug));
  const taken = await held(queryRunner, 'markets', 'slug_skeleton', slugs, sources);
  await queryRunner.query(`UPDATE markets m SET slug_skeleton = u.skeleton FROM unnest($1::bigint[], $2::text[]) AS u(id, skeleton) WHERE m.id = u.id`, [
    rows.map((row) => row.id),
    slugs.map((slug, at) => claim(taken, sources[at], slug)),
  ]);
}

/** `skeleton`, claimed within `scope` for the row at hand; null when an earlier row holds it. */
function claim(taken: Set<string>, scope: string, skeleton: string): string | null {
  const key = `${scope}\u0000${skeleton}`;
  if (taken.has(key)) return null;
  taken.add(key);
  return skeleton;
}
