import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultPostgres } from './support/fault-postgres';
import { ServerProcess } from './support/server-process';

/** An address of this machine that is not loopback: what another machine would connect to. */
function outsideAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((candidate) => candidate && !candidate.internal && candidate.family === 'IPv4');
  if (!address) throw new Error('this machine has no IPv4 address but loopback: the suite needs one to connect from "outside"');
  return address.address;
}

const reachable = (host: string, port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect({ host, port });
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
  });

/**
 * Where the built server listens (contract §5): loopback in the zero-setup mode, every interface
 * with DATABASE_URL, HOST when set, the metrics port alike; and the one line at start naming
 * every setting in force that weakens a default.
 */
describe('faults: where the server listens, and the settings that weaken a default', () => {
  const outside = outsideAddress();
  let dataDir: string;
  let postgres: FaultPostgres;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'oracle-test-'));
    await chmod(dataDir, 0o755);
    postgres = await FaultPostgres.start();
  });

  afterAll(async () => {
    await postgres?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The server started with `env`: where it can be reached, what it logged at start; stopped by SIGTERM (its own PostgreSQL with it). */
  async function startedWith(databaseUrl: string | null, env: Record<string, string>) {
    const logs = { EMBEDDED_DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'json' };
    const server = await ServerProcess.start({ databaseUrl, env: { ...logs, ...env }, readyTimeoutMs: 90_000 });
    try {
      /** The log lines that match, once `count` came within `timeoutMs` (else none). */
      const logged = async (pattern: RegExp, count: number, timeoutMs: number) =>
        (await server.linesMatching((line) => pattern.test(line), count, timeoutMs).catch(() => []))
          .map((line) => JSON.parse(line) as { level: number; msg: string })
          .map(({ level, msg }) => ({ level, msg }));
      const listening = await logged(/"(listening|metrics) on /, 2, 10_000);
      return {
        loopback: [await reachable('127.0.0.1', server.port), await reachable('127.0.0.1', server.metricsPort)],
        outside: [await reachable(outside, server.port), await reachable(outside, server.metricsPort)],
        listening: listening.map((line) => line.msg).sort(),
        // Written with the listening line: a second after it, it has come if it ever does.
        weakened: await logged(/weaken a default/, 1, 1_000),
        port: server.port,
        metricsPort: server.metricsPort,
      };
    } finally {
      server.signal('SIGTERM');
      expect((await server.waitExit(20_000))?.code).toBe(0);
      await server.stop();
    }
  }

  it('listens on loopback only in the zero-setup mode, the API and the metrics, and names no weakened default', async () => {
    const started = await startedWith(null, {});
    expect(started).toEqual({
      loopback: [true, true],
      outside: [false, false],
      listening: [`listening on 127.0.0.1:${started.port}`, `metrics on 127.0.0.1:${started.metricsPort} (GET /metrics)`],
      weakened: [],
      port: started.port,
      metricsPort: started.metricsPort,
    });
  });

  it('listens where HOST says, and says in one line at start each setting that weakens a default', async () => {
    const started = await startedWith(null, { HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', CORS_ORIGINS: 'http://localhost:8080', TRUST_PROXY: '1' });
    expect(started).toEqual({
      loopback: [true, true],
      outside: [true, true],
      listening: [`listening on 0.0.0.0:${started.port}`, `metrics on 0.0.0.0:${started.metricsPort} (GET /metrics)`],
      weakened: [
        {
          level: 40,
          msg:
            'settings in force that weaken a default: ' +
            'WEBHOOK_ALLOW_PRIVATE_URLS=true (webhooks may be http:// and reach this machine and private networks); ' +
            'CORS_ORIGINS=http://localhost:8080 (pages from these origins may call the API from browsers); ' +
            'TRUST_PROXY=1 (X-Forwarded-For names the client behind these proxies: rate limits and logs go by it); ' +
            'HOST=0.0.0.0 (the zero-setup server, with its demo keys, is reachable from other machines)',
        },
      ],
      port: started.port,
      metricsPort: started.metricsPort,
    });
  });

  it('listens on every interface with DATABASE_URL, as a server in a container must (the image, the cluster, production)', async () => {
    const database = await postgres.createDatabase();
    const started = await startedWith(database.url, {});
    expect(started).toEqual({
      loopback: [true, true],
      outside: [true, true],
      listening: [`listening on port ${started.port} (every interface)`, `metrics on port ${started.metricsPort} (every interface) (GET /metrics)`],
      weakened: [],
      port: started.port,
      metricsPort: started.metricsPort,
    });
  });
});
