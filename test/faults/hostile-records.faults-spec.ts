import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient, runPool } from './support/http-client';
import { countCodes, expectNo5000, type HostileServer, metricValue, startHostileServer, underAttack } from './support/hostile';
import { type ChildProcess, spawn } from 'node:child_process';

const LARGE_RECORDS = 3_000;
// The longest reasoning the admin API takes, with one character outside Latin-1: V8 then keeps
// the whole text at two bytes a character, so each cached record takes ~20 KB.
const REASONING = '\u2019' + 'x'.repeat(9_999);
const READERS = 4;
// Records of ~90 KB: 10,000 emoji of reasoning and 20 proofs of 200 emoji each (the caps).
const HEAVY_RECORDS = 60;
const UNREAD_CONNECTIONS = 400;
const UNREAD_BUDGET = 8 * 1024 * 1024; // MAX_UNREAD_ANSWER_BYTES's default
// Serializing 3,200 answers of ~90 KB keeps a core busy: the innocent client waits behind them.
const HEAVY_P99_BOUND_MS = 1_000;

/**
 * `connections` connections from `address` to `port`, each sending 8 pipelined reads of the heavy
 * records and reading nothing, until killed. Python's sockets, because Node's cannot shrink their
 * receive buffers: with loopback's, the kernel took every answer, as no real network would.
 */
function hoard(port: number, address: string, connections: number, source: string): ChildProcess {
  const script = `
import socket, sys, time
port, address, count, source, records = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
held = []
for i in range(count):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1400)
    s.bind((address, 0))
    s.connect(('127.0.0.1', port))
    s.sendall(b''.join(b'GET /oracle/markets/public?slug=heavy-%d&source=%s HTTP/1.1\\r\\nHost: oracle\\r\\n\\r\\n' % ((i * 8 + j) % records + 1, source.encode()) for j in range(8)))
    held.append(s)
time.sleep(600)
`;
  return spawn('python3', ['-c', script, String(port), address, String(connections), source, String(HEAVY_RECORDS)], { stdio: 'ignore' });
}

/**
 * Public records as large as the admin API lets them be. The record cache counted entries only
 * (5,000), so reading ~2,700 such records once each, without credentials, filled V8's 96 MB heap
 * and the process died; it now also bounds their bytes (PUBLIC_CACHE_MAX_BYTES, 16 MiB).
 */
describe('faults: large public records', () => {
  let h: HostileServer;

  beforeAll(async () => {
    h = await startHostileServer({ name: 'records-server' });
    await h.dataSource.query(
      `INSERT INTO markets (source, slug, status, verdict, confidence, reasoning, resolved_at)
       SELECT $1, 'large-' || n, 'resolved', 'YES', 'HIGH', $2, now() FROM generate_series(1, $3::int) AS n`,
      [h.cached.source, REASONING, LARGE_RECORDS],
    );
    await h.dataSource.query(
      `WITH heavy AS (
         INSERT INTO markets (source, slug, status, verdict, confidence, reasoning, resolved_at)
         SELECT $1, 'heavy-' || n, 'resolved', 'YES', 'HIGH', repeat($2, 10000), now() FROM generate_series(1, $3::int) AS n
         RETURNING id)
       INSERT INTO proofs (market_id, position, chain, tx_hash) SELECT id, p, 'base', repeat($2, 200) FROM heavy, generate_series(0, 19) AS p`,
      [h.cached.source, '\u{1F600}', HEAVY_RECORDS],
    );
  });

  afterAll(async () => {
    await h?.stop();
  });

  it(`stays within its memory while ${LARGE_RECORDS} records of 10,000-character reasoning are each read once, anonymously`, async () => {
    const s = h.server;
    const readers = h.track(...Array.from({ length: READERS }, () => new HttpClient(s.http.baseUrl, '127.0.0.61')));
    const reads = Array.from({ length: LARGE_RECORDS }, (_, n) => () =>
      readers[n % READERS].request('GET', `/oracle/markets/public?slug=large-${n + 1}&source=${h.cached.source}`),
    );
    const attack = await underAttack(s, h.innocent, () => runPool(reads, READERS));
    const answers = attack.outcome;
    expect(answers.filter((answer) => answer.body?.code !== 0 || answer.body.data.markets[0].reasoning !== REASONING)).toEqual([]);
    // What the cache keeps is bounded by its bytes: far fewer than 5,000 such records.
    const cached = { entries: await metricValue(s, 'oracle_public_cache_size', { unit: 'entries' }), bytes: await metricValue(s, 'oracle_public_cache_size', { unit: 'bytes' }) };
    expect(cached.bytes).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(cached.entries).toBeLessThan(1_000);
    await expectNo5000(s);
    console.log(
      [
        `${LARGE_RECORDS} records of ${REASONING.length}-character reasoning, each read once by ${READERS} anonymous connections:`,
        `  ${attack.summary}; cached afterwards: ${cached.entries} records, ${(cached.bytes / 1024 / 1024).toFixed(1)} MB (estimated)`,
        `  the reads: ${countCodes(answers.map((answer) => answer.body ?? {}))}`,
      ].join('\n'),
    );
  });

  it(`bounds the answers its clients do not read: ${UNREAD_CONNECTIONS} connections from one address each pipelining 8 reads of ~90 KB records, reading nothing`, async () => {
    const s = h.server;
    const attack = await underAttack(
      s,
      h.innocent,
      async () => {
        const hoarder = hoard(s.port, '127.0.0.71', UNREAD_CONNECTIONS, h.cached.source);
        try {
          await sleep(3_000);
          const unread = await metricValue(s, 'oracle_http_unread_answer_bytes');
          // Another request from that address: past its share. One from another: served.
          const refusal = await new HttpClient(s.http.baseUrl, '127.0.0.71').request('GET', `/oracle/markets/public?slug=heavy-1&source=${h.cached.source}`);
          return { unread, refusal };
        } finally {
          hoarder.kill('SIGKILL');
        }
      },
      HEAVY_P99_BOUND_MS,
    );
    const { unread, refusal } = attack.outcome;
    expect(refusal.body).toEqual({ code: 4290, msg: 'too many requests', detail: 'too many answers waiting to be read by this address' });
    expect(refusal.headers?.['retry-after']).toBe('1');
    // Past half the budget the address is refused; what was admitted before is still written.
    expect(unread).toBeGreaterThan(UNREAD_BUDGET / 2);
    expect(await metricValue(s, 'oracle_http_requests_shed_total', { reason: 'client-answers' })).toBeGreaterThan(0);
    // Its connections closed, what they did not read is let go, and the address is served again.
    let left = await metricValue(s, 'oracle_http_unread_answer_bytes');
    for (const deadline = performance.now() + 5_000; left !== 0 && performance.now() < deadline; left = await metricValue(s, 'oracle_http_unread_answer_bytes')) await sleep(100);
    expect(left).toBe(0);
    const again = await new HttpClient(s.http.baseUrl, '127.0.0.71').request('GET', `/oracle/markets/public?slug=heavy-1&source=${h.cached.source}`);
    expect(again.body?.code).toBe(0);
    await expectNo5000(s);
    console.log(
      [
        `${UNREAD_CONNECTIONS} connections from one address, each 8 pipelined reads of ~90 KB records, nothing read (2 KB receive buffers):`,
        `  ${attack.summary}; unread answers held ${(unread / 1024 / 1024).toFixed(1)} MB (MAX_UNREAD_ANSWER_BYTES 8 MiB)`,
      ].join('\n'),
    );
  });
});
