import { describe, expect, it } from '@jest/globals';
import { validateEnvironment } from './environment';

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

  it('names every bad variable and hides secrets', () => {
    expect(() => validateEnvironment({ PORT: 'eighty', DATABASE_URL: 'mysql://secret@x/y' })).toThrow(
      /PORT="eighty": .*\n\s+DATABASE_URL=\(hidden\): must be a postgres/,
    );
  });

  it('rejects a short admin master key', () => {
    expect(() => validateEnvironment({ ADMIN_MASTER_KEY: 'short' })).toThrow(/ADMIN_MASTER_KEY/);
  });
});
