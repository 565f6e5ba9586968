import { join } from 'node:path';
import { startCluster, stopCluster } from '../../../scripts/cluster/index.mjs';

/**
 * One cluster for the whole run, in .cluster-test/ (apart from a developer's .cluster/).
 * Instances behind PgBouncer unless CLUSTER_INSTANCES_DIRECT=1. If they do not start, the
 * rest stays up and the error is recorded: the infrastructure tests still run, and each
 * test that needs the instances fails with that error.
 */
export default async function globalSetup(_globalConfig: unknown, projectConfig: { rootDir: string }): Promise<void> {
  const dir = process.env.CLUSTER_DIR ?? join(projectConfig.rootDir, '.cluster-test');
  process.env.CLUSTER_DIR = dir;
  await stopCluster(dir); // an earlier run that was killed
  try {
    const state = await startCluster({
      dir,
      mode: process.env.CLUSTER_INSTANCES_DIRECT === '1' ? 'direct' : 'pooler',
      keepOnInstanceFailure: true,
      // The loads here are one client: the per-key and per-IP budgets are not under test.
      instanceEnv: {
        RATE_LIMIT_PUBLIC_PER_MINUTE: '10000000',
        RATE_LIMIT_DISPUTE_PER_MINUTE: '10000000',
        RATE_LIMIT_ADMIN_PER_MINUTE: '10000000',
      },
    });
    const took = `infrastructure ${state.timings.infrastructureMs} ms, total ${state.timings.totalMs ?? '-'} ms`;
    console.log(`\ncluster (${state.mode}) in ${dir}: ${state.status}, ${took}`);
  } catch (error) {
    await stopCluster(dir).catch(() => undefined);
    throw error;
  }
}
