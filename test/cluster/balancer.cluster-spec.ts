import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { balancerServers, SHUTDOWN_DELAY_MS, startInstance, stopInstance, waitBalancer } from '../../scripts/cluster/index.mjs';
import { HttpClient, runPool } from '../faults/support/http-client';
import { clusterDirectory, urls, withInstances } from './support/cluster';

const ALL = ['instance1', 'instance2', 'instance3'];
const servedBy = (result: { headers?: Record<string, unknown> }) => result.headers?.['x-cluster-instance'];

async function statusOf(name: string) {
  const server = (await balancerServers(clusterDirectory())).find((candidate) => candidate.name === name);
  if (!server) throw new Error(`the balancer has no server ${name}`);
  return server;
}

/** HAProxy in front of the instances: health checks on /health/ready, retries elsewhere. */
describe('cluster: the load balancer', () => {
  it('spreads requests over the three instances', async () => {
    withInstances();
    const client = new HttpClient(urls().balancer);
    try {
      const answers = await runPool(Array.from({ length: 30 }, () => () => client.request('GET', '/health/live')), 3);
      expect(answers.map((x) => x.status)).toEqual(answers.map(() => 200));
      expect(new Set(answers.map(servedBy))).toEqual(new Set(ALL));
    } finally {
      client.close();
    }
  });

  it('takes out an instance whose readiness answers 503 (SIGTERM), keeps it out once stopped, and puts it back when it is ready', async () => {
    withInstances();
    const dir = clusterDirectory();
    const instance = new HttpClient(urls().instance(2));
    const balancer = new HttpClient(urls().balancer);
    try {
      const signalledAt = performance.now();
      const stopped = stopInstance(dir, 2, 'SIGTERM');
      let down = await statusOf('instance2');
      while (down.status !== 'DOWN' && performance.now() - signalledAt < SHUTDOWN_DELAY_MS * 3) {
        await sleep(20);
        down = await statusOf('instance2');
      }
      const downAfterMs = performance.now() - signalledAt;
      // Out because it said 503, while it still served: within its SHUTDOWN_DELAY_MS.
      const live = await instance.request('GET', '/health/live', { freshConnection: true });
      expect({ status: down.status, check: down.check, code: down.checkCode }).toEqual({ status: 'DOWN', check: 'L7STS', code: 503 });
      expect(downAfterMs).toBeLessThan(SHUTDOWN_DELAY_MS);
      expect(live.status).toBe(200);

      expect(await stopped).toBe(true); // it exited by itself after draining
      const gone = await statusOf('instance2');
      expect(gone.status).toBe('DOWN');
      const whileGone = await runPool(Array.from({ length: 20 }, () => () => balancer.request('GET', '/health/live')), 2);
      expect(whileGone.map((x) => x.status)).toEqual(whileGone.map(() => 200));
      expect(whileGone.map(servedBy)).not.toContain('instance2');

      await startInstance(dir, 2);
      const back = await runPool(Array.from({ length: 30 }, () => () => balancer.request('GET', '/health/live')), 3);
      expect(new Set(back.map(servedBy))).toEqual(new Set(ALL));
    } finally {
      instance.close();
      balancer.close();
    }
  });

  it('sends the requests meant for a crashed instance to another before its checks notice', async () => {
    withInstances();
    const dir = clusterDirectory();
    const balancer = new HttpClient(urls().balancer);
    try {
      const before = await statusOf('instance3');
      await stopInstance(dir, 3, 'SIGKILL');
      // Sent at once, each on a new connection: some go to instance3, still UP for the balancer.
      const answers = await runPool(Array.from({ length: 30 }, () => () => balancer.request('GET', '/health/live', { freshConnection: true })), 6);
      const after = await statusOf('instance3');
      expect(answers.map((x) => x.status)).toEqual(answers.map(() => 200));
      expect(answers.map(servedBy)).not.toContain('instance3');
      expect(after.redispatches).toBeGreaterThan(before.redispatches);
      await startInstance(dir, 3);
      await waitBalancer(dir, [1, 2, 3], 'UP');
    } finally {
      balancer.close();
    }
  });
});
