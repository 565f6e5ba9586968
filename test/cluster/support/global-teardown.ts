import { stopCluster } from '../../../scripts/cluster/index.mjs';

/** Stops everything; the logs stay in the cluster folder's logs/. */
export default async function globalTeardown(): Promise<void> {
  await stopCluster(process.env.CLUSTER_DIR);
}
