// deploy/compose.yaml held to the service: what it sets is read and accepted by the service, and
// the values that must agree across the files (URLs, ports, probes, stop times) do.
import { describe, expect, it } from '@jest/globals';
import { validateEnvironment } from '../src/config/environment';
import {
  compose,
  type ComposeService,
  composeDurationMs,
  composeEnvironment,
  dockerfile,
  finalShutdownMs,
  imageDefaults,
  ini,
  interpolated,
  read,
  unknownVariables,
  withStandIns,
} from './support/deploy-files';

const { services, text } = compose();
/** The containers of the service's image: those built from the repo's Dockerfile. */
const oracle = Object.entries(services).filter(([, service]) => service.build !== undefined);
const settings = (service: ComposeService) => ({ ...imageDefaults(), ...composeEnvironment(service) });
const url = (value: string) => new URL(withStandIns(value));

describe('deploy/compose.yaml', () => {
  it("runs the repo's image as the migration, the API and the webhook workers", () => {
    expect(oracle.map(([name]) => name).sort()).toEqual(['api', 'migrate', 'webhook-workers']);
    for (const [, service] of oracle) expect(service).toMatchObject({ image: services.api.image, build: { context: '..', dockerfile: 'Dockerfile' } });
  });

  it('sets only variables the service reads', () => {
    for (const [name, service] of oracle) {
      expect({ service: name, unknown: unknownVariables(Object.keys(composeEnvironment(service))) }).toEqual({ service: name, unknown: [] });
    }
  });

  it('sets values the service accepts', () => {
    for (const [, service] of oracle) {
      const environment = Object.entries(composeEnvironment(service)).map(([name, value]) => [name, withStandIns(value)]);
      expect(() => validateEnvironment(Object.fromEntries(environment))).not.toThrow();
    }
  });

  it('runs three API instances without webhook deliveries, and the workers apart with some', () => {
    expect(services.api.deploy?.replicas).toBe(3);
    expect(composeEnvironment(services.api).WEBHOOK_WORKERS).toBe('0');
    expect(Number(composeEnvironment(services['webhook-workers']).WEBHOOK_WORKERS)).toBeGreaterThan(0);
  });

  it('pools through PgBouncer (the primary as DATABASE_URL, the replica as DATABASE_READ_URL) and takes sessions on the primary', () => {
    const pgbouncer = ini('deploy/pgbouncer/pgbouncer.ini');
    expect(pgbouncer.pgbouncer.pool_mode).toBe('transaction');
    const server = (database: string) => Object.fromEntries(pgbouncer.databases[database].split(/\s+/).map((pair) => pair.split('=')));
    const pooled = (value: string, host: string) => {
      const { hostname, port, pathname } = url(value);
      expect([hostname, port]).toEqual(['pgbouncer', pgbouncer.pgbouncer.listen_port]);
      expect(server(pathname.slice(1))).toMatchObject({ host, port: '5432' });
    };
    for (const [, service] of oracle) {
      const { DATABASE_URL, DATABASE_READ_URL, DATABASE_DIRECT_URL } = composeEnvironment(service);
      if (DATABASE_URL) pooled(DATABASE_URL, 'primary');
      if (DATABASE_READ_URL) pooled(DATABASE_READ_URL, 'replica');
      const direct = url(DATABASE_DIRECT_URL);
      expect([direct.hostname, direct.port, direct.pathname]).toEqual(['primary', '5432', `/${server('oracle').dbname}`]);
    }
    expect(read('deploy/postgres/replica-entrypoint.sh')).toMatch(/pg_basebackup --host primary /);
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['primary', 'replica', 'pgbouncer', 'redis']));
    expect(url(composeEnvironment(services.api).REDIS_URL).hostname).toBe('redis');
  });

  it("balances on /health/ready at the instances' PORT, and exposes METRICS_PORT to a scraper", () => {
    const haproxy = read('deploy/haproxy/haproxy.cfg');
    expect(haproxy).toMatch(/^\s*option httpchk$/m);
    expect(/http-check send meth GET uri (\S+)/.exec(haproxy)?.[1]).toBe('/health/ready');
    const [, count, host, port] = /server-template \S+ (\d+) ([\w-]+):(\d+) check/.exec(haproxy) ?? [];
    expect([Number(count), host, port]).toEqual([services.api.deploy?.replicas, 'api', settings(services.api).PORT]);
    for (const name of ['api', 'webhook-workers']) expect(services[name].expose?.map(String)).toContain(settings(services[name]).METRICS_PORT);
  });

  it('gives every instance longer to stop than SHUTDOWN_DELAY_MS + SHUTDOWN_GRACE_MS + its last wait', () => {
    for (const [name, service] of oracle.filter(([, candidate]) => candidate.restart !== 'no')) {
      const { SHUTDOWN_DELAY_MS, SHUTDOWN_GRACE_MS } = settings(service);
      const needed = Number(SHUTDOWN_DELAY_MS) + Number(SHUTDOWN_GRACE_MS) + finalShutdownMs();
      const stopMs = composeDurationMs(service.stop_grace_period ?? '10s');
      expect({ service: name, stopMs, neededMs: needed, enough: stopMs > needed }).toMatchObject({ enough: true });
    }
  });

  it('migrates once, before any instance starts', () => {
    expect(services.migrate).toMatchObject({ command: ['node', 'dist/migrate.js', 'run'], restart: 'no' });
    for (const name of ['api', 'webhook-workers']) expect(services[name].depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
  });

  it('health-checks every long-running container', () => {
    for (const [name, service] of Object.entries(services).filter(([, candidate]) => candidate.restart !== 'no')) {
      const test = service.build ? dockerfile().healthcheck : service.healthcheck?.test;
      expect({ service: name, disabled: service.healthcheck?.disable ?? false, test: Boolean(test) }).toEqual({ service: name, disabled: false, test: true });
    }
  });

  it('commits no secret: passwords and ADMIN_MASTER_KEY come from deploy/.env, listed empty in .env.example', () => {
    const example = read('deploy/.env.example').split('\n').filter((line) => /^[A-Z]/.test(line)).map((line) => line.split('='));
    expect([...new Set(interpolated(text))].sort()).toEqual(example.map(([name]) => name).sort());
    expect(example.filter(([, value]) => value !== '')).toEqual([]);
    expect(read('.gitignore').split('\n')).toContain('.env');
    expect(composeEnvironment(services.api).ADMIN_MASTER_KEY).toMatch(/^\$\{ADMIN_MASTER_KEY:\?/);
    for (const [, service] of oracle) {
      for (const value of Object.values(composeEnvironment(service)).filter((candidate) => candidate.startsWith('postgres://'))) {
        expect(value).toMatch(/^postgres:\/\/\w+:\$\{\w+:\?[^}]*\}@/);
      }
    }
  });
});
