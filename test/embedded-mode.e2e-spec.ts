import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { EmbeddedDatabase } from '../src/database/embedded-database';
import { TEST_FOLDER_PREFIX } from './support/leftovers';

describe('zero-setup mode (no DATABASE_URL): embedded PostgreSQL with demo data', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), TEST_FOLDER_PREFIX));
    await chmod(dataDir, 0o755);
    delete process.env.DATABASE_URL;
    delete process.env.ADMIN_MASTER_KEY;
    process.env.EMBEDDED_DATA_DIR = dataDir;
    process.env.LOG_LEVEL = 'silent';
    process.env.METRICS_PORT = '0';
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  async function boot() {
    const { createApp } = await import('../src/create-app');
    const app = await createApp();
    await app.init();
    return app;
  }

  it('creates the demo partner and one market in each status on first start, and keeps them across restarts', async () => {
    const printed: string[] = [];
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    const first = await boot();
    // main.ts shows them once the server listens.
    const { DemoDataService } = await import('../src/demo/demo-data.service');
    first.get(DemoDataService).showCreatedKeys();
    stdout.mockRestore();
    // The keys, as plain lines that paste into a shell, and how to get new ones.
    const text = printed.join('');
    const apiKey = /^ {4}export API_KEY=(sok_[A-Za-z0-9_-]{43})$/m.exec(text)?.[1];
    const adminKey = /^ {4}export ADMIN_KEY=(soa_[A-Za-z0-9_-]{43})$/m.exec(text)?.[1];
    expect(text).toContain('`npm run demo:keys` issues new ones');
    const submitted = await request(first.getHttpServer())
      .post('/oracle/markets/dispute/submit')
      .set('x-api-key', apiKey!)
      .send({ market_id: 987654, submitter_id: 'u', submitter_name: 'U', submitter_selection: 'NO', reason_text: 'r' });
    expect(submitted.body.code).toBe(4040); // authenticated: the key works
    const reviewers = await request(first.getHttpServer()).get('/admin/reviewers').set('authorization', `Bearer ${adminKey}`);
    expect(reviewers.body.data.reviewers).toEqual([expect.objectContaining({ name: 'local-admin', role: 'admin' })]);

    const statuses: string[] = [];
    for (const slug of [
      'will-it-snow-in-lisbon-2026',
      'btc-above-100k-2026',
      'eth-etf-flows-positive-2026',
      'fed-cuts-rates-2026',
    ]) {
      const response = await request(first.getHttpServer()).get('/oracle/markets/public').query({ slug, source: 'demo' });
      expect(response.body.code).toBe(0);
      statuses.push(response.body.data.markets[0].status);
    }
    expect(statuses).toEqual(['monitoring', 'resolved', 'disputed', 'closed']);
    await first.close();

    const second = await boot();
    const closed = await request(second.getHttpServer())
      .get('/oracle/markets/public')
      .query({ slug: 'fed-cuts-rates-2026', source: 'demo' });
    expect(closed.body.data.markets[0].disputes[0].decision).toMatchObject({
      type: 'override',
      partner_final_verdict: 'NO',
    });
    const { appDatabase } = await import('./support/app-database');
    const [{ markets, admins }] = await appDatabase(second)
      .query(`SELECT (SELECT count(*)::int FROM markets) AS markets,
                     (SELECT count(*)::int FROM reviewers WHERE role = 'admin') AS admins`);
    expect({ markets, admins }).toEqual({ markets: 4, admins: 1 });
    await second.close();
  });

  it('issues new demo keys (npm run demo:keys) with the server running and stopped, and leaves no key unseen when it fails', async () => {
    const { issueDemoKeys } = await import('../src/demo/demo-keys');
    const { authConfig, databaseConfig } = await import('../src/config/configuration');
    const issue = () => issueDemoKeys(databaseConfig(), authConfig());
    const app = await boot();
    const { appDatabase } = await import('./support/app-database');
    const activeKeys = async () =>
      (await appDatabase(app).query('SELECT prefix FROM api_keys WHERE revoked_at IS NULL ORDER BY id')).map((row: { prefix: string }) => row.prefix);
    const works = async (keys: { apiKey: string; adminKey: string }) => {
      const filed = await request(app.getHttpServer()).post('/oracle/markets/dispute/submit').set('x-api-key', keys.apiKey).send({ market_id: 987654, submitter_id: 'u', submitter_name: 'U', submitter_selection: 'NO', reason_text: 'r' });
      const listed = await request(app.getHttpServer()).get('/admin/reviewers').set('authorization', `Bearer ${keys.adminKey}`);
      return [filed.body.code, listed.body.code];
    };
    const whileRunning = await issue();
    expect(await works(whileRunning)).toEqual([4040, 0]);
    const before = await activeKeys();
    // The local admin's name taken by a reviewer: refused, and the partner key of the same run is not left behind.
    await appDatabase(app).query(`UPDATE reviewers SET role = 'reviewer' WHERE name = 'local-admin'`);
    await expect(issue()).rejects.toThrow('the reviewer account local-admin is not an admin');
    expect(await activeKeys()).toEqual(before);
    await appDatabase(app).query(`UPDATE reviewers SET role = 'admin' WHERE name = 'local-admin'`);
    await app.close();

    const whileStopped = await issue();
    const again = await boot();
    const filed = await request(again.getHttpServer()).post('/oracle/markets/dispute/submit').set('x-api-key', whileStopped.apiKey).send({});
    expect(filed.body.code).toBe(4000); // authenticated: the body is what is wrong
    const listed = await request(again.getHttpServer()).get('/admin/reviewers').set('authorization', `Bearer ${whileStopped.adminKey}`);
    expect(listed.body.code).toBe(0);
    await again.close();
  });

  it("runs the README's Try it block as written against the printed keys, and at an error answer prints it and stops", async () => {
    const { issueDemoKeys } = await import('../src/demo/demo-keys');
    const { authConfig, databaseConfig } = await import('../src/config/configuration');
    const keys = await issueDemoKeys(databaseConfig(), authConfig());
    const app = await boot();
    await app.listen(0, '127.0.0.1');
    try {
      const block = /## Try it\n\n```sh\n([\s\S]*?)```/.exec(await readFile('README.md', 'utf8'))![1];
      // Not spawnSync: the server answering the block runs in this process.
      const run = (apiKey: string) =>
        new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
          const env = { PATH: process.env.PATH, HOME: dataDir, B: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`, API_KEY: apiKey, ADMIN_KEY: keys.adminKey };
          execFile('bash', ['-c', block], { env }, (error, stdout, stderr) => done({ status: error ? Number(error.code) : 0, stdout, stderr }));
        });
      const refused = await run('sok_not-a-key');
      expect(refused.stderr.split('\n').filter((line) => line !== '')).toEqual([
        '{"code":4011,"msg":"invalid api key","detail":"invalid api key"}',
        expect.stringMatching(/DISPUTE: parameter null or not set$/),
      ]);
      expect(refused.status).not.toBe(0);
      const ran = await run(keys.apiKey);
      expect({ status: ran.status, stderr: ran.stderr }).toEqual({ status: 0, stderr: '' });
      expect([...ran.stdout.matchAll(/\{"code":(\d+)/g)].map((match) => Number(match[1]))).toEqual([0, 0, 0, 0, 0]);
      expect(ran.stdout).toMatch(/"partner_final_verdict":"NO"[^]*$/);
    } finally {
      await app.close();
    }
  });

  it('runs in a data folder whose parent is closed to other users (mode 0700), and opens it again', async () => {
    // As root, PostgreSQL runs as the OS user postgres, which cannot traverse this parent.
    const parent = await mkdtemp(join(tmpdir(), TEST_FOLDER_PREFIX));
    const folder = join(parent, 'data');
    try {
      expect((await stat(parent)).mode & 0o777).toBe(0o700);
      for (const start of ['first', 'again']) {
        const database = await EmbeddedDatabase.start({ dataDir: folder });
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        if (start === 'first') await client.query('CREATE TABLE kept (note text); INSERT INTO kept VALUES ($$written$$)');
        expect((await client.query('SELECT note FROM kept')).rows).toEqual([{ note: 'written' }]);
        await client.end();
        await database.stop();
      }
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('tells when its PostgreSQL ends without being stopped (killed), and not when it is stopped', async () => {
    const folder = await mkdtemp(join(tmpdir(), TEST_FOLDER_PREFIX));
    await chmod(folder, 0o755);
    try {
      const endings: string[] = [];
      const killed = await EmbeddedDatabase.start({ dataDir: folder });
      killed.onUnexpectedExit((how) => endings.push(how));
      const postmasterPid = Number((await readFile(join(killed.clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      process.kill(postmasterPid, 'SIGKILL');
      for (let waited = 0; endings.length === 0 && waited < 5_000; waited += 20) await sleep(20);
      expect(endings).toEqual(['signal SIGKILL']);
      await killed.stop();

      const stopped = await EmbeddedDatabase.start({ dataDir: folder });
      stopped.onUnexpectedExit((how) => endings.push(how));
      await stopped.stop();
      await sleep(100);
      expect(endings).toEqual(['signal SIGKILL']);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('refuses a second server on a data folder in use, and leaves the running one alone', async () => {
    const folder = await mkdtemp(join(tmpdir(), TEST_FOLDER_PREFIX));
    await chmod(folder, 0o755);
    try {
      const running = await EmbeddedDatabase.start({ dataDir: folder });
      await expect(EmbeddedDatabase.start({ dataDir: folder })).rejects.toThrow(
        new RegExp(`^the data folder ${folder} is in use by another server \\(pid ${process.pid}\\)`),
      );
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: running.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
      await client.end();
      await running.stop();
      // Given up on stop: the folder can be taken again.
      await (await EmbeddedDatabase.start({ dataDir: folder })).stop();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
