// `npm run bench:change-log`: filings per second with the change log against the announcements
// by NOTIFY it replaced, in one run on one PostgreSQL, rounds alternating. Each filing is the
// service's statements (DisputeFiling) on a market of its own; "notify" is the same without the
// event, the announcement triggers of migration PublicMarketChanges installed, a LISTEN session heard;
// "change log" polls change_log_poll every 100 ms meanwhile, as an instance does. pgbench drives it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { applyMigrations, describeUrl, provisionDatabase, query, requireDist } from './db.mjs';

const PGBENCH = process.env.BENCH_PGBENCH || '/usr/lib/postgresql/15/bin/pgbench';
const CLIENTS = Number(process.env.BENCH_CLIENTS || 16);
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 4);
const MARKETS = 400_000;

/** A filing as DisputeFiling makes it: the key held, the market locked, the dispute, the market disputed, its event. */
const filing = (withEvent) => `SELECT nextval('bench_pick') AS mid \\gset
BEGIN;
SELECT hold_partner_key(1);
SELECT id, source, slug, status, verdict FROM markets WHERE id = :mid FOR UPDATE;
INSERT INTO disputes (market_id, status, submitter_id, submitter_name, submitter_selection, reason_text, submitted_at)
  VALUES (:mid, 'open', 'u-1', 'Ada', 'NO', 'The source was corrected.', now()) ON CONFLICT DO NOTHING RETURNING id;
UPDATE markets SET status = 'disputed', updated_at = now() WHERE id = :mid;
${withEvent ? "SELECT append_market_event('dispute.filed', :mid);" : ''}
COMMIT;
`;

async function seed(url) {
  await query(url, "INSERT INTO partners (source, name, source_skeleton, name_skeleton) VALUES ('bench', 'Bench', 'bench', 'bench')");
  await query(url, `INSERT INTO api_keys (partner_id, key_hash, prefix) VALUES (1, repeat('a', 64), 'sok_bench')`);
  await query(
    url,
    `INSERT INTO markets (source, slug, slug_skeleton, status, verdict, confidence, reasoning, resolved_at)
     SELECT 'bench', 'm-' || i, 'm-' || i, 'resolved', 'YES', 'HIGH', 'Confirmed.', now() FROM generate_series(1, $1) i`,
    [MARKETS],
  );
  await query(url, 'CREATE SEQUENCE bench_pick');
}

/** The database with the announcements by NOTIFY of the release before the change log: its triggers. */
async function asBefore(url) {
  const { PublicMarketChanges1763900000000 } = requireDist('database/migrations/1763900000000-PublicMarketChanges.js');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await new PublicMarketChanges1763900000000().up({ query: (text) => client.query(text) });
  await client.end();
}

function pgbench(url, script) {
  return new Promise((resolve, reject) => {
    const args = ['-n', '-c', String(CLIENTS), '-j', '2', '-T', String(SECONDS), '-f', script, url];
    const child = spawn(PGBENCH, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => {
      const tps = /tps = ([\d.]+)/.exec(out)?.[1];
      if (code !== 0 || !tps) reject(new Error(`pgbench failed (${code}): ${out.slice(-500)}`));
      else resolve(Number(tps));
    });
  });
}

/** What an instance does beside the load: polls the change log, or listens for the announcements. */
async function beside(url, kind) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  let heard = 0;
  let timer;
  if (kind === 'notify') {
    client.on('notification', () => heard++);
    await client.query('LISTEN market_changed');
  } else {
    const head = await client.query('SELECT coalesce(max(sequence), 0) AS head FROM market_events');
    let after = Number(head.rows[0].head);
    timer = setInterval(async () => {
      const { rows } = await client.query('SELECT change_log_poll($1, 1000) AS poll', [after]).catch(() => ({ rows: [] }));
      const events = rows[0]?.poll.events ?? [];
      heard += events.length;
      after = events.at(-1)?.sequence ?? after;
    }, 100);
  }
  return { heard: () => heard, stop: async () => (clearInterval(timer), await client.end()) };
}

async function main() {
  if (!existsSync(PGBENCH)) throw new Error(`no pgbench at ${PGBENCH} (Debian's postgresql-15 has it; BENCH_PGBENCH names another)`);
  const folder = mkdtempSync(join(tmpdir(), 'bench-change-log-'));
  const scripts = { 'change log': join(folder, 'filing.sql'), notify: join(folder, 'filing-notify.sql') };
  writeFileSync(scripts['change log'], filing(true));
  writeFileSync(scripts.notify, filing(false));
  const databases = {};
  for (const kind of ['change log', 'notify']) {
    databases[kind] = await provisionDatabase();
    await applyMigrations(databases[kind].url);
    await seed(databases[kind].url);
    if (kind === 'notify') await asBefore(databases[kind].url);
  }
  console.log(`filings/s, ${CLIENTS} clients, ${SECONDS} s a round, on ${describeUrl(databases['notify'].url)}`);
  const results = { 'change log': [], notify: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of round % 2 === 0 ? ['change log', 'notify'] : ['notify', 'change log']) {
        const side = await beside(databases[kind].url, kind);
        const tps = await pgbench(databases[kind].url, scripts[kind]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        results[kind].push(tps);
        console.log(`  round ${round + 1}, ${kind}: ${Math.round(tps)} filings/s (${side.heard()} changes read)`);
        await side.stop();
      }
    }
  } finally {
    for (const database of Object.values(databases)) await database.cleanup();
    rmSync(folder, { recursive: true, force: true });
  }
  const median = (runs) => [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  for (const [kind, runs] of Object.entries(results)) {
    console.log(`${kind}: ${runs.map((tps) => Math.round(tps)).join(', ')} filings/s, median ${Math.round(median(runs))}`);
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
