import { describe, expect, it } from '@jest/globals';
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
      'invalid configuration: PORT="eighty": must be an integer from 1 to 65535; DATABASE_URL=(hidden): must be a postgres:// or postgresql:// URL',
    );
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
