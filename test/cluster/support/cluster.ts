import pg from 'pg';
import { type ClusterState, loadState, type Node, urlsOf } from '../../../scripts/cluster/index.mjs';

/** The cluster global-setup.ts started (its state as of now: roles change at a failover). */
export function cluster(): ClusterState {
  return loadState(process.env.CLUSTER_DIR);
}

export const clusterDirectory = (): string => process.env.CLUSTER_DIR!;
export const urls = () => urlsOf(cluster());

/** The cluster's state, failing the test at once when its instances did not start. */
export function withInstances(): ClusterState {
  const state = cluster();
  if (state.status !== 'running') throw new Error(`the instances did not start (mode ${state.mode}):\n${state.instancesError}`);
  return state;
}

/** A client of one PostgreSQL server as its superuser, or of any address. */
export async function connect(target: { node: Node; database?: string } | { url: string }, applicationName = 'cluster-test'): Promise<pg.Client> {
  const connectionString = 'url' in target ? target.url : urls().server(target.node, target.database);
  const client = new pg.Client({ connectionString, application_name: applicationName, connectionTimeoutMillis: 3_000 });
  await client.connect();
  return client;
}

/** Rows of one query on a fresh connection. */
export async function query<Row = Record<string, unknown>>(
  target: { node: Node; database?: string } | { url: string },
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = await connect(target);
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** The current primary's `oracle` database, as its superuser. */
export const primary = () => ({ node: cluster().roles.primary, database: 'oracle' });
