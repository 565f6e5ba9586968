import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `npm run bench` reads the built service's settings; nothing else runs it before a release. */
describe('the bench runner on the built service', () => {
  it('reads the service defaults from dist/ (its pool size)', () => {
    const script = `
      const { parseArguments } = await import('./bench/config.mjs');
      const { environmentDefaults } = (await import('node:module')).createRequire(process.cwd() + '/')('./dist/config/environment.js');
      console.log(JSON.stringify({ poolSize: parseArguments([]).poolSize, defaults: environmentDefaults().DB_POOL_SIZE }));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT, encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(result.stderr).toBe('');
    const { poolSize, defaults } = JSON.parse(result.stdout);
    expect(poolSize).toBe(defaults);
    expect(defaults).toBeGreaterThan(0);
  });
});
