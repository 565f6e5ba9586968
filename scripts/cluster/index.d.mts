// Types of index.mjs for the cluster tests (TypeScript).
export type Node = 'pg1' | 'pg2';

export interface ClusterState {
  dir: string;
  logDir: string;
  runDir: string;
  runDirIsTemp: boolean;
  osUser: { name: string; uid: number; gid: number } | null;
  mode: 'pooler' | 'direct';
  status: 'starting' | 'running' | 'instances-failed';
  instancesError?: string;
  schemaAtSpawn?: 'empty' | 'present';
  ports: {
    primary: number;
    replica: number;
    pgbouncer: number;
    redis: number;
    balancer: number;
    balancerAdmin: number;
    primaryAddress: number;
    instances: { http: number; metrics: number }[];
  };
  postgres: Record<Node, { port: number; dataDir: string }>;
  roles: { primary: Node; replica: Node | null };
  keys: { adminMasterKey: string; partnerKey: string | null };
  instanceEnv: Record<string, string>;
  pids: Record<string, number>;
  timings: { infrastructureMs?: number; totalMs?: number; instancesSpawnSpreadMs?: number };
}

export interface ClusterUrls {
  balancer: string;
  database: string;
  databaseRead: string;
  databaseDirect: string;
  pgbouncerAdmin: string;
  redis: string;
  instance(n: number): string;
  server(node: Node, database?: string): string;
}

export interface BalancerServer {
  name: string;
  status: string;
  check: string;
  checkCode: number | null;
  retries: number;
  redispatches: number;
}

export interface StartOptions {
  dir?: string;
  mode?: 'pooler' | 'direct';
  portBase?: number;
  instanceEnv?: Record<string, string>;
  keepOnInstanceFailure?: boolean;
}

export class AlreadyRunning extends Error {
  state: ClusterState;
}

export const SHUTDOWN_DELAY_MS: number;
export const SHUTDOWN_GRACE_MS: number;
export function startCluster(options?: StartOptions): Promise<ClusterState>;
export function stopCluster(dir?: string): Promise<number>;
export function clusterDir(dir?: string): string;
export function loadState(dir?: string): ClusterState;
export function urlsOf(state: ClusterState): ClusterUrls;
export function stopPrimary(dir?: string): Promise<void>;
export function promoteReplica(dir?: string): Promise<void>;
export function repointPgBouncer(dir?: string): Promise<void>;
export function repointPrimaryAddress(dir?: string): Promise<void>;
export function stopInstance(dir: string | undefined, n: number, signal?: NodeJS.Signals): Promise<boolean>;
export function startInstance(dir: string | undefined, n: number): Promise<void>;
export function waitBalancer(dir: string | undefined, ns: number[], status: string, timeoutMs?: number): Promise<void>;
export function balancerServers(dir?: string): Promise<BalancerServer[]>;
export function pgbouncerAdmin(dir: string | undefined, command: string): Promise<Record<string, unknown>[]>;
export function serverQuery(dir: string | undefined, node: Node, text: string, database?: string): Promise<Record<string, unknown>[]>;
