import { describe, expect, it } from '@jest/globals';
import { getHeapStatistics } from 'node:v8';
import { validateEnvironment } from './environment';
import { StartupError } from './startup-error';

describe('validateEnvironment', () => {
  it('applies the documented defaults', () => {
    const environment = validateEnvironment({});
    expect(environment.PORT).toBe(3000);
    expect(environment.DATABASE_URL).toBeUndefined();
    expect(environment.EMBEDDED_DATA_DIR).toBe('./data');
    expect(environment.DB_POOL_SIZE).toBe(10);
    expect(environment.LOG_LEVEL).toBe('info');
  });

  it('reads the webhook settings: workers (0 sends none), the private-URL flag as true or false only', () => {
    expect(validateEnvironment({})).toMatchObject({ WEBHOOK_WORKERS: 4, WEBHOOK_ALLOW_PRIVATE_URLS: false, WEBHOOK_FIRST_RETRY_SECONDS: 12 });
    expect(validateEnvironment({ WEBHOOK_WORKERS: '0', WEBHOOK_ALLOW_PRIVATE_URLS: ' true ' })).toMatchObject({ WEBHOOK_WORKERS: 0, WEBHOOK_ALLOW_PRIVATE_URLS: true });
    expect(() => validateEnvironment({ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' })).toThrow('invalid configuration: WEBHOOK_ALLOW_PRIVATE_URLS="yes": must be true or false');
    expect(() => validateEnvironment({ WEBHOOK_WORKERS: '-1' })).toThrow('invalid configuration: WEBHOOK_WORKERS=-1: WEBHOOK_WORKERS must not be less than 0');
  });

  it('parses numbers given as strings', () => {
    expect(validateEnvironment({ PORT: '8080' }).PORT).toBe(8080);
  });

  it('names every bad variable in one line, and hides secrets', () => {
    let message = '';
    try {
      validateEnvironment({ PORT: 'eighty', DATABASE_URL: 'mysql://secret@x/y' });
    } catch (error) {
      expect(error).toBeInstanceOf(StartupError);
      message = (error as Error).message;
    }
    expect(message).toBe(
      "invalid configuration: PORT=\"eighty\": must be an integer from 1 to 65535; DATABASE_URL=(hidden): must be a postgres:// or postgresql:// URL (unset it for the service's own PostgreSQL)",
    );
  });

  const refusal = (raw: Record<string, string>) => {
    try {
      validateEnvironment(raw);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('refuses a DATABASE_URL set but empty (a secret not filled in) rather than serving from a database of its own', () => {
    for (const empty of ['', '  ']) expect(refusal({ DATABASE_URL: empty })).toMatch(/^invalid configuration: DATABASE_URL=\(hidden\): must be a postgres/);
  });

  it('hides a refused REDIS_URL, which may carry a password, and refuses one set but empty rather than counting per instance', () => {
    expect(refusal({ REDIS_URL: ' redis://:S3cret@127.0.0.1:6379' })).toBe(
      'invalid configuration: REDIS_URL=(hidden): must be a redis:// or rediss:// URL (unset it for counts per instance)',
    );
    for (const empty of ['', '  ']) expect(refusal({ REDIS_URL: empty })).toMatch(/^invalid configuration: REDIS_URL=\(hidden\): must be a redis/);
  });

  it('takes TRUST_PROXY as Express would trust it, and refuses at start what Express would fail on or read otherwise', () => {
    for (const value of ['false', ' 2 ', 'loopback', 'loopback, linklocal', '10.0.0.0/8, 192.168.1.1', '::1/128', '10.0.0.0/255.0.0.0']) {
      expect({ value, refused: refusal({ TRUST_PROXY: value }) }).toEqual({ value, refused: undefined });
    }
    expect(validateEnvironment({ TRUST_PROXY: ' 7 ' }).TRUST_PROXY).toBe('7');
    // Ranges proxy-addr refuses: a prefix of 0, a netmask that is not contiguous.
    for (const value of ['abc', '1e3', ' ', 'fade', '5.5', '10.0.0.0/33', '::1/129', 'loopback,', 'local', '0.0.0.0/0', '::/0', '10.0.0.0/0.0.0.0', '10.0.0.0/255.0.255.0', '100', '010']) {
      expect(refusal({ TRUST_PROXY: value })).toMatch(/^invalid configuration: TRUST_PROXY=.*: must be false, a hop count/);
    }
  });

  it('refuses TRUST_PROXY=true, saying why: any client could choose its own address', () => {
    for (const value of ['true', ' true ']) {
      expect(refusal({ TRUST_PROXY: value })).toBe(
        'invalid configuration: TRUST_PROXY="true": true would let any client choose its own address (the left-most X-Forwarded-For entry): ' +
          'give the number of proxies in front of the service, or their addresses',
      );
    }
  });

  it("refuses a public cache larger than a fifth of the heap's limit: reads of large records could exhaust the heap", () => {
    const overAFifth = Math.floor(getHeapStatistics().heap_size_limit / 5) + 1;
    expect(refusal({ PUBLIC_CACHE_MAX_BYTES: String(overAFifth) })).toMatch(
      new RegExp(`^invalid configuration: PUBLIC_CACHE_MAX_BYTES=${overAFifth}: must be at most a fifth of the heap's limit`),
    );
    expect(refusal({ PUBLIC_CACHE_MAX_BYTES: String(16 * 2 ** 20) })).toBeUndefined();
  });

  it('keeps the requests one connection may have in progress below the database pool', () => {
    expect(validateEnvironment({ DB_POOL_SIZE: '20', MAX_REQUESTS_PER_CONNECTION: '16' }).MAX_REQUESTS_PER_CONNECTION).toBe(16);
    expect(() => validateEnvironment({ DB_POOL_SIZE: '4' })).toThrow(
      new StartupError(
        'invalid configuration: MAX_REQUESTS_PER_CONNECTION=8: must be below DB_POOL_SIZE (4), or one connection could hold every database connection',
      ),
    );
  });

  it('rejects a short admin master key', () => {
    expect(() => validateEnvironment({ ADMIN_MASTER_KEY: 'short' })).toThrow(/ADMIN_MASTER_KEY/);
  });

  it('takes the admin master key trimmed, and refuses one no Bearer header can carry', () => {
    const key = 'master-key-0123456789-abcdef';
    expect(validateEnvironment({ ADMIN_MASTER_KEY: `  ${key}\n` }).ADMIN_MASTER_KEY).toBe(key);
    expect(validateEnvironment({ ADMIN_MASTER_KEY: ' \n' }).ADMIN_MASTER_KEY).toBeUndefined();
    for (const bad of ['correct horse battery staple 42', `${key}\tx`, `${key}é`]) {
      expect(() => validateEnvironment({ ADMIN_MASTER_KEY: bad })).toThrow(
        new StartupError('invalid configuration: ADMIN_MASTER_KEY=(hidden): must be printable ASCII without spaces (it is sent as a Bearer token)'),
      );
    }
  });

  it('takes CORS origins as browsers send them, and refuses what no Origin header can match', () => {
    const origins = 'https://app.example.com, http://localhost:8080,https://[::1]:3001';
    expect(validateEnvironment({ CORS_ORIGINS: origins }).CORS_ORIGINS).toBe(origins);
    expect(validateEnvironment({ CORS_ORIGINS: ' ' }).CORS_ORIGINS).toBeUndefined();
    for (const bad of ['notanorigin', 'https://app.example.com/', 'https://app.example.com/path', 'https://app.example.com:443', '*', 'HTTPS://App.example.com', 'https://ok.example,app.example.com']) {
      expect(() => validateEnvironment({ CORS_ORIGINS: bad })).toThrow(
        new StartupError(
          `invalid configuration: CORS_ORIGINS=${JSON.stringify(bad)}: must be comma-separated origins as browsers send them, such as https://app.example.com or http://localhost:8080 (no path, no trailing slash, no default port)`,
        ),
      );
    }
  });
});
