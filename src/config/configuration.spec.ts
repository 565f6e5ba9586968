import { afterEach, describe, expect, it } from '@jest/globals';
import { changesConfig, databaseConfig, httpConfig } from './configuration';

describe('configuration namespaces', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it('gives each concern its validated, typed settings', () => {
    Object.assign(process.env, { PORT: '8081', DATABASE_READ_URL: 'postgres://a/x, postgres://b/x', CHANGES_POLL_INTERVAL_MS: '40' });
    expect(httpConfig()).toMatchObject({ port: 8081, metricsPort: 9464, corsOrigins: [] });
    expect(databaseConfig()).toMatchObject({ readUrls: ['postgres://a/x', 'postgres://b/x'], poolSize: 10 });
    expect(changesConfig()).toMatchObject({ pollIntervalMs: 40, deafAfterMs: 1000 });
  });

  it('listens on loopback in the zero-setup mode, on every interface with DATABASE_URL, where HOST says when set', () => {
    delete process.env.DATABASE_URL;
    delete process.env.HOST;
    expect(httpConfig().host).toBe('127.0.0.1');
    process.env.DATABASE_URL = 'postgres://db/oracle';
    expect(httpConfig().host).toBeUndefined();
    for (const host of ['0.0.0.0', '::', '10.1.2.3', 'oracle-1.internal']) {
      process.env.HOST = ` ${host} `;
      expect(httpConfig().host).toBe(host);
    }
    delete process.env.DATABASE_URL;
    process.env.HOST = '';
    expect(httpConfig().host).toBe('127.0.0.1');
    process.env.HOST = 'http://0.0.0.0';
    expect(() => httpConfig()).toThrow('invalid configuration: HOST="http://0.0.0.0": must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name of this machine');
  });

  it('reads the environment again when it changed, and refuses a bad one in one line', () => {
    process.env.PORT = '8082';
    expect(httpConfig().port).toBe(8082);
    process.env.PORT = '8083';
    expect(httpConfig().port).toBe(8083);
    process.env.PORT = 'eighty';
    expect(() => databaseConfig()).toThrow('invalid configuration: PORT="eighty": must be an integer from 1 to 65535');
  });
});
