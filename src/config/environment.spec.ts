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

  it('rejects a short admin master key', () => {
    expect(() => validateEnvironment({ ADMIN_MASTER_KEY: 'short' })).toThrow(/ADMIN_MASTER_KEY/);
  });
});
