import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { countCodes, expectNo5000, type HostileServer, metricValue, startHostileServer, underAttack } from './support/hostile';
import { type OneServer, startOneServer } from './support/one-server';
import { openConnections, RawConnection, type RawAnswer, rawRequest } from './support/raw-http';
import { disputeBody } from './support/seed';

const BUSY_WITH_BODIES = { code: 5031, msg: 'server busy', detail: 'too many request bodies in progress' };
const TOO_LONG = 4000; // reason_text over its length cap: the body was read and validated
const UPLOADERS = 2000;
const PIECES = 8;
const PIECE_EVERY_MS = 250;
// 3,000 connections sending at once keep both cores busy (as in the slow-clients suite).
const INNOCENT_P99_BOUND_MS = 1_000;

/** A dispute of `length` bytes (its reason_text fills it: over the field's cap), for `apiKey`. */
function bigDispute(marketId: number, apiKey: string, length: number): { head: string; body: string } {
  const shape = JSON.stringify({ ...disputeBody(marketId), reason_text: '-' });
  const body = shape.replace('"-"', `"${'x'.repeat(length - shape.length + 1)}"`);
  const head =
    `POST /oracle/markets/dispute/submit HTTP/1.1\r\nHost: oracle\r\nx-api-key: ${apiKey}\r\n` +
    `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return { head, body };
}

/** Writes `head`, then `body` in PIECES pieces PIECE_EVERY_MS apart, on every connection at once. */
async function uploadSlowly(connections: RawConnection[], head: string, body: string): Promise<void> {
  const piece = Math.ceil(body.length / PIECES);
  for (const connection of connections) {
    connection.startReading();
    connection.write(head);
  }
  for (let n = 0; n < PIECES; n++) {
    for (const connection of connections) connection.write(body.slice(n * piece, (n + 1) * piece));
    await sleep(PIECE_EVERY_MS);
  }
}

function expectBusy(answer: RawAnswer | undefined): void {
  expect(answer?.status).toBe(200);
  expect(answer?.body).toEqual(BUSY_WITH_BODIES);
  expect(answer?.headers['retry-after']).toBe('1');
}

/**
 * Request bodies held at once (MAX_BODY_BYTES_IN_FLIGHT): the requests in progress are counted
 * from when their bodies are read, so before this bound thousands of connections trickling
 * bodies just under 64 KiB at once filled V8's heap while being read, and the process died.
 */
describe('faults: request bodies held at once', () => {
  let h: HostileServer;
  let small: OneServer;

  beforeAll(async () => {
    h = await startHostileServer({ name: 'bodies-server', partners: 2 });
    small = await startOneServer({ name: 'small-budget-server', env: { MAX_BODY_BYTES_IN_FLIGHT: String(4 * 64 * 1024) } });
  });

  afterAll(async () => {
    await h?.stop();
    await small?.server.stop();
    await small?.postgres.destroy();
  });

  it(`stays up under ${UPLOADERS} connections each trickling a 64,000-byte dispute at once, answering 5031 to what it cannot hold`, async () => {
    const s = h.server;
    // Another partner's market and key: the innocent client's disputes keep their own budget.
    const target = h.markets[2];
    const uploaders = h.track(...(await openConnections(s.port, UPLOADERS)));
    const { head, body } = bigDispute(target.id, target.apiKey, 64_000);
    const attack = await underAttack(
      s,
      h.innocent,
      async () => {
        await uploadSlowly(uploaders, head, body);
        await Promise.all(uploaders.map((connection) => connection.readAnswers(1, 15_000)));
      },
      INNOCENT_P99_BOUND_MS,
    );
    const answers = uploaders.map((connection) => connection.answers[0]);
    const busy = answers.filter((answer) => answer?.body?.code === 5031);
    for (const answer of busy) expectBusy(answer);
    // Read whole, then refused for the reason's length; or past the key's dispute budget (300 a minute).
    const read = answers.filter((answer) => answer?.body?.code === TOO_LONG || answer?.body?.code === 4290);
    expect(busy.length + read.length).toBe(UPLOADERS);
    expect(busy.length).toBeGreaterThan(0);
    expect(await metricValue(s, 'oracle_http_requests_shed_total', { reason: 'bodies' })).toBe(busy.length);
    await expectNo5000(s);
    console.log(
      [
        `${UPLOADERS} connections, each a 64,000-byte dispute in ${PIECES} pieces ${PIECE_EVERY_MS} ms apart (MAX_BODY_BYTES_IN_FLIGHT 8 MiB):`,
        `  ${attack.summary}`,
        `  the uploaders: ${countCodes(answers.map((answer) => answer?.body ?? {}))}`,
      ].join('\n'),
    );
  });

  it('refuses a body past the budget before reading it, serves requests without one, and gives the budget back as answers are written', async () => {
    const s = small.server;
    const [market] = small.markets;
    const { head, body } = bigDispute(market.id, market.apiKey, 60_000);
    // Four bodies of 60,000 bytes fit in 256 KiB; each sends its first half and waits.
    const holders = await openConnections(s.port, 4);
    for (const holder of holders) {
      holder.startReading();
      holder.write(head + body.slice(0, 30_000));
    }
    await sleep(300);
    const [refused] = await openConnections(s.port, 1);
    refused.write(head);
    const [refusal] = await refused.readAnswers(1, 2_000);
    expectBusy(refusal);
    refused.close();
    // A read has no body, and a small dispute still fits (256 KiB - 4 x 60,000 bytes).
    const read = await s.http.request('GET', `/oracle/markets/public?slug=${market.slug}&source=${market.source}`);
    expect(read.body.code).toBe(0);
    const dispute = await s.http.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': market.apiKey }, body: disputeBody(market.id) });
    expect(dispute.body.code).toBe(0);
    // The held bodies end: each is read and answered, and the budget is whole again.
    for (const holder of holders) holder.write(body.slice(30_000));
    const held = await Promise.all(holders.map(async (holder) => (await holder.readAnswers(1, 5_000))[0]?.body?.code));
    expect(held).toEqual([TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG]);
    for (const holder of holders) holder.close();
    const [again] = await openConnections(s.port, 1);
    again.write(head + body);
    expect((await again.readAnswers(1, 2_000))[0]?.body?.code).toBe(TOO_LONG);
    again.close();
    expect(await metricValue(s, 'oracle_http_requests_shed_total', { reason: 'bodies' })).toBe(1);
    await expectNo5000(s);
  });

  it('gives back the place and the bytes of every pipelined request whose connection closes before its answer', async () => {
    const s = small.server;
    const [market] = small.markets;
    const { head, body } = bigDispute(market.id, market.apiKey, 30_000);
    const reads = (tag: string) =>
      Array.from({ length: 8 }, (_, n) => rawRequest('GET', `/oracle/markets/public?slug=nowhere-${tag}-${n}&source=${market.source}`)).join('');
    // Requests queued behind the first on their connection have no socket yet when it closes:
    // their answers are never written, and only the response's 'close' says so.
    for (let round = 0; round < 20; round++) {
      const connections = await openConnections(s.port, 10);
      connections.forEach((connection, i) => connection.write(i % 2 ? reads(`${round}-${i}`) : (head + body).repeat(4)));
      await sleep(3);
      for (const connection of connections) connection.close();
    }
    // What was taken in is worked on to its end (a lost place never comes back): a second to
    // settle, then up to five for the last answers.
    await sleep(1_000);
    const held = async () => [await metricValue(s, 'oracle_http_requests_in_flight'), await metricValue(s, 'oracle_http_request_body_bytes_held')];
    let now = await held();
    for (const deadline = performance.now() + 5_000; now.some((value) => value !== 0) && performance.now() < deadline; now = await held()) {
      await sleep(100);
    }
    expect(now).toEqual([0, 0]);
    // The whole budget again: four 60,000-byte bodies are read whole.
    const whole = bigDispute(market.id, market.apiKey, 60_000);
    const writers = await openConnections(s.port, 4);
    for (const writer of writers) writer.write(whole.head + whole.body);
    const codes = await Promise.all(writers.map(async (writer) => (await writer.readAnswers(1, 5_000))[0]?.body?.code));
    expect(codes).toEqual([TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG]);
    for (const writer of writers) writer.close();
    await expectNo5000(s);
  });
});
