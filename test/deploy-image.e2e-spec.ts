// The image the deployment files run: its Dockerfile against package.json and Environment.
import { describe, expect, it } from '@jest/globals';
import { environmentDefaults } from '../src/config/environment';
import { dockerfile, KNOWN_VARIABLES, read, unknownVariables } from './support/deploy-files';

describe('the image', () => {
  const image = dockerfile();

  it("runs node with start:prod's flags as its main process", () => {
    const startProd = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts['start:prod'];
    expect(image.cmd).toEqual(startProd.replace(/^exec /, '').split(/\s+/));
  });

  it('exposes the API and metrics ports it sets, the defaults of PORT and METRICS_PORT', () => {
    const defaults = environmentDefaults();
    expect(image.expose).toEqual([defaults.PORT, defaults.METRICS_PORT]);
    expect(image.env).toMatchObject({ PORT: String(defaults.PORT), METRICS_PORT: String(defaults.METRICS_PORT) });
  });

  it('checks /health/live on PORT, as the non-root user node', () => {
    expect(image.healthcheck).toMatch(/port:process\.env\.PORT\|\|3000,path:'\/health\/live'/);
    expect(image.user).toBe('node');
  });
});

describe('the list of variables the service reads', () => {
  it('holds what Environment declares, optional ones included', () => {
    for (const name of ['PORT', 'DATABASE_URL', 'DATABASE_DIRECT_URL', 'DATABASE_READ_URL', 'ADMIN_MASTER_KEY', 'REDIS_URL', 'SHUTDOWN_DELAY_MS']) {
      expect(KNOWN_VARIABLES).toContain(name);
    }
  });

  it('names a misspelled variable, with the one it was likely meant to be', () => {
    expect(unknownVariables(['SHUTDOWN_DELAY_MS', 'SHUTDOWN_DELAY_MSS', 'DATABSE_URL', 'FOO'])).toEqual([
      'SHUTDOWN_DELAY_MSS (did you mean SHUTDOWN_DELAY_MS?)',
      'DATABSE_URL (did you mean DATABASE_URL?)',
      'FOO',
    ]);
  });
});
