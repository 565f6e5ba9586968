// bench/seed.mjs: fills (or grows) the service's schema with realistic benchmark data.
//
//   import { seed } from './seed.mjs';
//   const { keys } = await seed(url, { markets: 100_000 });            // fresh: 100k markets
//   await seed(url, { markets: 1_000_000, keys });                      // grow the same data to 1M
//
// Standalone (applies pending migrations first, prints the partners' plaintext keys as JSON):
//   node bench/seed.mjs postgres://user@host:5432/db 100000
//
// Everything is set-based SQL (INSERT ... SELECT ... FROM generate_series), in chunks, and
// deterministic: market n (its id) always gets the same source, slug, status and text, derived
// from hashint8(n) (a built-in hash), so growing 10k → 100k → 1M adds markets n+1.. and never
// touches existing ones. Data shape:
//   - 20 partners (sources), one API key each, made with the service's own generateKey('partner')
//     (dist/auth/key-hashing.js) so the bench knows the plaintext keys;
//   - markets spread evenly over the sources: ~8% monitoring, ~5% disputed (open dispute),
//     ~5% closed (dispute with a decision, keep or override), ~82% resolved;
//   - slugs of 30-60 characters in a few shapes (will-btc-close-above-…-2026-…, team-vs-team-…);
//   - reasoning of 300-1200 characters; dispute reason_text of 100-400 characters;
//   - proofs: 1-2 per non-monitoring market (position 0 on base or bsc, position 1 on the other
//     chain), tx hash 0x + 64 hex;
//   - every disputed/closed market has exactly one dispute row (the schema allows one).
// The schema's CHECKs (resolved ⇒ verdict/confidence/reasoning/resolved_at; closed dispute ⇔
// decision fields) and foreign keys are satisfied by construction. When the role may (a
// superuser, as on the embedded server), the load runs with session_replication_role = replica:
// the schema's triggers (change announcements for the service's cache, foreign-key checks)
// do not fire for seeded rows, which makes growing to 1M about twice as fast (~45 s here).
// No service runs while the bench seeds, so no announcement is missed.
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { applyMigrations, describeUrl, requireDist } from './db.mjs';

export const SOURCES = [
  'augur-hub', 'betfolio', 'chainodds', 'cryptoforecast', 'delphi-markets',
  'eventx', 'foresight-io', 'gnosis-pred', 'hedgehog-mkts', 'insight-bets',
  'kalshi-relay', 'limitless-pm', 'manifold-pro', 'nostradamus', 'oddsbook',
  'predictit-x', 'quantbet', 'risk-exchange', 'sportsmarket', 'thales-pm',
];

const CHUNK = 100_000;

// u(n, salt): a deterministic "uniform" number in [0, 1) for market n.
const u = (n, salt) => `(((hashint8((${n}) * 64 + ${salt})::bigint & 2147483647) % 1000000) / 1000000.0)`;
// pick(array, n, salt): one element of a SQL text array literal.
const pick = (items, n, salt) =>
  `(ARRAY[${items.map((item) => `'${item}'`).join(',')}])[1 + floor(${u(n, salt)} * ${items.length})::int]`;

const ASSETS = ['btc', 'eth', 'sol', 'bnb', 'xrp', 'doge', 'ada', 'avax', 'link', 'dot', 'ton', 'trx'];
const TEAMS = ['lakers', 'celtics', 'warriors', 'bucks', 'nuggets', 'heat', 'knicks', 'suns', 'arsenal', 'chelsea',
  'liverpool', 'barcelona', 'real-madrid', 'bayern', 'psg', 'juventus', 'inter', 'dortmund'];
const LEAGUES = ['nba', 'epl', 'laliga', 'ucl', 'serie-a', 'bundesliga'];
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october',
  'november', 'december'];
const COUNTRIES = ['us', 'uk', 'germany', 'japan', 'brazil', 'india', 'canada', 'france'];
const CONFIDENCES = ['VERY_HIGH', 'HIGH', 'HIGH', 'MEDIUM', 'MEDIUM', 'LOW', 'VERY_LOW'];
const FIRST_NAMES = ['Ann', 'Bo', 'Chen', 'Dmitri', 'Elif', 'Farah', 'Gustavo', 'Hana', 'Ivan', 'Jun', 'Kofi', 'Lena'];

// Settlement-style prose; reasoning and reasons are slices of it (no single quotes: it is
// inlined into SQL).
const PROSE = [
  'The market asked whether the reference price would settle above the stated threshold at the close of the',
  'observation window. We read the official closing print from the primary venue named in the market rules and',
  'cross-checked it against two independent aggregators; all three agreed to within one basis point. The',
  'resolution source published its final figure forty minutes after the close and did not revise it during the',
  'twenty-four hour challenge period. Intraday spikes above the threshold do not count under the rules, which',
  'refer to the settlement print only. A late correction on one aggregator was traced to a stale feed and ignored.',
  'No exchange outage, trading halt or delisting affected the window, and the clock used is UTC as stated. The',
  'on-chain proofs below anchor the snapshot of the evidence bundle, including the raw API responses, their',
  'timestamps and the hash of the rules text as published when the market opened. Confidence reflects the',
  'agreement of sources and the absence of ambiguity in the wording; lower tiers mean a judgment call was needed',
  'about an edge case the rules did not anticipate, documented here so partners can review it.',
  'For sports markets the result is the one recorded by the governing body after any video review, and matches',
  'abandoned before full time follow the postponement clause: a replay within seven days counts, otherwise the',
  'market resolves to the rules default. Macro markets use the first release of the statistical office, not later',
  'revisions, unless the rules say otherwise. Where two sources disagree we take the one the rules name first and',
  'record the disagreement. Every figure quoted here is reproducible from the evidence bundle, and the reviewer',
  'who signed off had no position in the market. Partners may dispute within the window described in the contract.',
].join(' ');
const REASON_PROSE = [
  'The user says the official source was corrected after the close and the corrected figure is on the other side',
  'of the threshold. They attached a screenshot of the venue page and a link to the errata notice, and argue that',
  'the rules refer to the final published value, not the first one. Our support team could not reproduce the',
  'screenshot but the errata page exists and is dated within the challenge window. Several other users on the',
  'platform reported the same discrepancy and asked for the market to be settled on the corrected value, or',
  'voided if the correction cannot be confirmed from the primary source before the payout date.',
].join(' ');
const DECISION_PROSE = [
  'Reviewed the errata notice and the venue archive. The correction applies to a different instrument with a',
  'similar ticker; the settlement print for this market was never revised. Evidence bundle re-verified on chain.',
].join(' ');

const TX_HASH = (id, position) =>
  `'0x' || md5((${id})::text || ':' || ${position}) || md5(${position} || ':' || (${id})::text)`;

function marketsSql() {
  const n = 'g.n';
  const date = `to_char(date '2025-01-01' + (${n} % 730)::int, 'YYYY-MM-DD')`;
  const month = pick(MONTHS, n, 5);
  const year = `(2025 + floor(${u(n, 6)} * 2)::int)::text`;
  const slug = `CASE floor(${u(n, 1)} * 6)::int
      WHEN 0 THEN 'will-' || ${pick(ASSETS, n, 2)} || '-close-above-' || (1000 + floor(${u(n, 3)} * 120000)::int) || '-' || ${date}
      WHEN 1 THEN ${pick(ASSETS, n, 2)} || '-above-' || (10 + floor(${u(n, 3)} * 190)::int) || 'k-end-of-' || ${month} || '-' || ${year}
      WHEN 2 THEN ${pick(TEAMS, n, 2)} || '-vs-' || ${pick(TEAMS, n, 3)} || '-' || ${pick(LEAGUES, n, 4)} || '-winner-' || ${date}
      WHEN 3 THEN 'fed-cuts-rates-by-' || (25 * (1 + floor(${u(n, 3)} * 3)::int)) || 'bps-at-' || ${month} || '-' || ${year} || '-meeting'
      WHEN 4 THEN 'will-' || ${pick(COUNTRIES, n, 2)} || '-cpi-exceed-' || (1 + floor(${u(n, 3)} * 6)::int) || '-pct-in-' || ${month} || '-' || ${year}
      ELSE 'will-' || ${pick(ASSETS, n, 2)} || '-etf-inflows-top-' || (1 + floor(${u(n, 3)} * 9)::int) || 'bn-by-' || ${date}
    END || '-' || to_hex(${n})`;
  const reasoningLength = `(300 + floor(${u(n, 8)} * 901)::int)`;
  const reasoningStart = `(1 + floor(${u(n, 9)} * ${PROSE.length - 1200})::int)`;
  return `
    INSERT INTO markets (id, source, slug, status, verdict, confidence, reasoning, resolved_at, created_at, updated_at)
    SELECT s.n, s.source, s.slug, s.status,
      CASE WHEN s.status = 'monitoring' THEN NULL ELSE s.verdict END,
      CASE WHEN s.status = 'monitoring' THEN NULL ELSE s.confidence END,
      CASE WHEN s.status = 'monitoring' THEN NULL ELSE s.reasoning END,
      CASE WHEN s.status = 'monitoring' THEN NULL ELSE s.resolved_at END,
      s.resolved_at - interval '30 days',
      CASE WHEN s.status = 'monitoring' THEN s.resolved_at - interval '30 days' ELSE s.resolved_at END
    FROM (
      SELECT n,
        (ARRAY[${SOURCES.map((source) => `'${source}'`).join(',')}])[1 + (n % ${SOURCES.length})::int] AS source,
        ${slug} AS slug,
        CASE WHEN ${u(n, 0)} < 0.08 THEN 'monitoring'
             WHEN ${u(n, 0)} < 0.13 THEN 'disputed'
             WHEN ${u(n, 0)} < 0.18 THEN 'closed'
             ELSE 'resolved' END AS status,
        CASE WHEN ${u(n, 10)} < 0.5 THEN 'YES' ELSE 'NO' END AS verdict,
        ${pick(CONFIDENCES, n, 11)} AS confidence,
        'Verdict: ' || btrim(substr('${PROSE}', ${reasoningStart}, ${reasoningLength})) || '.' AS reasoning,
        timestamptz '2025-01-01 00:00:00+00' + make_interval(secs => floor(${u(n, 12)} * 63000000000) / 1000.0) AS resolved_at
      FROM generate_series($1::bigint, $2::bigint) AS g(n)
    ) s`;
}

function proofsSql() {
  // Position 0 always; position 1 for about half the markets, on the other chain.
  return `
    INSERT INTO proofs (market_id, position, chain, tx_hash)
    SELECT m.id, p.position,
      CASE WHEN (${u('m.id', 13)} < 0.7) = (p.position = 0) THEN 'base' ELSE 'bsc' END,
      ${TX_HASH('m.id', 'p.position')}
    FROM markets m CROSS JOIN (VALUES (0), (1)) AS p(position)
    WHERE m.id BETWEEN $1 AND $2 AND m.status <> 'monitoring'
      AND (p.position = 0 OR ${u('m.id', 14)} < 0.5)`;
}

function disputesSql() {
  const n = 'm.id';
  const reasonLength = `(100 + floor(${u(n, 20)} * 301)::int)`;
  const reasonStart = `(1 + floor(${u(n, 21)} * ${REASON_PROSE.length - 400})::int)`;
  const decisionLength = `(80 + floor(${u(n, 22)} * 160)::int)`;
  const selection = `CASE WHEN m.verdict = 'YES' THEN 'NO' ELSE 'YES' END`;
  const submittedAt = `(m.resolved_at + make_interval(secs => floor(${u(n, 23)} * 86400000) / 1000.0))`;
  return `
    INSERT INTO disputes (market_id, status, submitter_id, submitter_name, submitter_selection, reason_text,
      submitted_at, created_at, decision_type, partner_final_verdict, decision_reason, decided_at, decided_by)
    SELECT m.id,
      CASE WHEN m.status = 'closed' THEN 'closed' ELSE 'open' END,
      'user-' || (100000 + floor(${u(n, 24)} * 900000)::int),
      ${pick(FIRST_NAMES, n, 25)},
      ${selection},
      btrim(substr('${REASON_PROSE}', ${reasonStart}, ${reasonLength})),
      ${submittedAt}, ${submittedAt},
      CASE WHEN m.status = 'closed' THEN (CASE WHEN ${u(n, 26)} < 0.7 THEN 'keep' ELSE 'override' END) END,
      CASE WHEN m.status = 'closed' THEN (CASE WHEN ${u(n, 26)} < 0.7 THEN m.verdict ELSE ${selection} END) END,
      CASE WHEN m.status = 'closed' THEN btrim(substr('${DECISION_PROSE}', 1, ${decisionLength})) END,
      CASE WHEN m.status = 'closed' THEN ${submittedAt} + interval '2 days' END,
      CASE WHEN m.status = 'closed' THEN 'reviewer-' || (1 + floor(${u(n, 27)} * 5)::int) END
    FROM markets m
    WHERE m.id BETWEEN $1 AND $2 AND m.status IN ('disputed', 'closed')`;
}

/**
 * Makes the database hold `markets` markets (adding markets max(id)+1..; never removing any),
 * the 20 partners and a known key per partner. Pass the `keys` a previous call returned to reuse
 * them; otherwise a fresh key is issued for every partner (older keys keep working).
 * Returns { keys: {source: plaintextKey}, markets, added, seconds }.
 */
export async function seed(url, { markets, keys, log = () => {}, analyze = true } = {}) {
  if (!Number.isInteger(markets) || markets < 0) throw new Error(`seed: markets must be a whole number, got ${markets}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const started = Date.now();
  try {
    await client.query('SET synchronous_commit = off');
    await client.query('SET statement_timeout = 0');
    // A bulk load: skip the schema's triggers (the change announcements for caches, the foreign
    // key checks; nothing listens while seeding and the rows are consistent by construction).
    // Needs a superuser (the embedded server's is); elsewhere the triggers just run.
    await client.query('SET session_replication_role = replica').catch(() => log('seeding with triggers on (not a superuser)'));
    await client.query(
      `INSERT INTO partners (source, name) SELECT s, initcap(replace(s, '-', ' ')) FROM unnest($1::text[]) AS s
       ON CONFLICT (source) DO NOTHING`,
      [SOURCES],
    );
    if (!keys || SOURCES.some((source) => !keys[source])) {
      const { generateKey } = requireDist('auth/key-hashing.js');
      keys = {};
      for (const source of SOURCES) {
        const generated = generateKey('partner');
        await client.query(
          `INSERT INTO api_keys (partner_id, key_hash, prefix) SELECT id, $2, $3 FROM partners WHERE source = $1`,
          [source, generated.hash, generated.prefix],
        );
        keys[source] = generated.key;
      }
    }

    const { rows: [state] } = await client.query('SELECT count(*)::bigint AS count, coalesce(max(id), 0)::bigint AS max FROM markets');
    const existing = Number(state.count);
    const toAdd = Math.max(0, markets - existing);
    let from = Number(state.max) + 1;
    const last = from + toAdd - 1;
    const insertMarkets = marketsSql();
    const insertProofs = proofsSql();
    const insertDisputes = disputesSql();
    while (from <= last) {
      const to = Math.min(last, from + CHUNK - 1);
      await client.query('BEGIN');
      await client.query(insertMarkets, [from, to]);
      await client.query(insertProofs, [from, to]);
      await client.query(insertDisputes, [from, to]);
      await client.query('COMMIT');
      log(`seeded markets ${from}..${to} (${Math.round((Date.now() - started) / 100) / 10} s)`);
      from = to + 1;
    }
    if (toAdd > 0) {
      await client.query(`SELECT setval('markets_id_seq', (SELECT max(id) FROM markets))`);
      if (analyze) await client.query('ANALYZE partners, api_keys, markets, proofs, disputes');
    }
    return { keys, markets: existing + toAdd, added: toAdd, seconds: (Date.now() - started) / 1000 };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

/** What the seeded data looks like (for the report and for sanity checks). */
export async function describeData(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: [row] } = await client.query(`
      SELECT (SELECT count(*) FROM markets)::int AS markets,
             (SELECT count(*) FROM partners)::int AS partners,
             (SELECT count(*) FROM proofs)::int AS proofs,
             (SELECT count(*) FROM disputes)::int AS disputes,
             (SELECT json_object_agg(status, c) FROM (SELECT status, count(*)::int AS c FROM markets GROUP BY status) s) AS by_status,
             (SELECT round(avg(length(slug)))::int FROM markets) AS avg_slug,
             (SELECT round(avg(length(reasoning)))::int FROM markets) AS avg_reasoning,
             (SELECT round(avg(length(reason_text)))::int FROM disputes) AS avg_reason_text,
             pg_size_pretty(pg_database_size(current_database())) AS size`);
    return row;
  } finally {
    await client.end();
  }
}

// Standalone: node bench/seed.mjs <postgres-url> <markets>
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [url, count] = process.argv.slice(2);
  if (!url || !/^postgres(ql)?:\/\//.test(url) || !/^\d+$/.test(count ?? '')) {
    console.error('usage: node bench/seed.mjs postgres://user@host:5432/database <markets>');
    process.exit(2);
  }
  const log = (line) => console.error(line);
  const applied = await applyMigrations(url);
  if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
  const result = await seed(url, { markets: Number(count), log });
  log(`${describeUrl(url)}: ${result.markets} markets (${result.added} added in ${result.seconds} s)`);
  log(JSON.stringify(await describeData(url)));
  console.log(JSON.stringify(result.keys, null, 2));
}
