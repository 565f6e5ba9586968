// bench/config.mjs: the runner's flags and BENCH_* variables (node bench/run.mjs --help).
import { requireDist } from './db.mjs';

export const HELP = `usage: node bench/run.mjs [--quick] [--scaling] [--docs | --no-docs]   (npm run bench -- --quick)

  --quick        small sizes and short loads, for developing the bench (does not record the run
                 in the history or the docs unless --docs is given)
  --scaling      also measure the read's cost vs. the data's size (10k, 100k, 1M markets: about
                 two more minutes; same as BENCH_SCALING=1). Off by default.
  --no-scaling   accepted for older scripts: the default
  --docs         append the run to bench/results/bench.jsonl and make it docs/benchmarks.md's
                 latest run, even in --quick mode
  --no-docs      touch neither (bench/results/<id>.json and latest.json are always written)

environment (defaults in brackets; --quick ones after the slash):
  BENCH_DATABASE_URL          a PostgreSQL server to use instead of an embedded one; the bench
                              creates oracle_bench_<hex> on it and drops it at the end
  BENCH_MARKETS               markets for the main loads [100000 / 20000]
  BENCH_CONNECTIONS           connection levels [10,50 / 50]; the targets are read at 50
  BENCH_ROUNDS                rounds of the read loads, each in the reverse order of the one
                              before [2 / 2]
  BENCH_DURATION              measured seconds per read load per round [5 / 2]
  BENCH_WARMUP                warm-up seconds before each load [2 / 1]
  BENCH_STARTUP_WARMUP        seconds of each read load, unmeasured, once the servers have
                              started (their code compiled, their heaps grown) [4 / 2]
  BENCH_DISPUTE_DURATION      measured seconds per dispute load (one per level) [10 / 3]
  BENCH_READ_SLUGS            the hot key set: distinct (source, slug) pairs cycled over [2000 / 1000]
  BENCH_COLD_KEYS             the cold key set: at most this many markets, drawn uniformly from all
                              of them, in random order [200000]
  BENCH_CORS_ORIGIN           CORS_ORIGINS of the second service, and the read loads' Origin
                              header [https://partner.example]
  BENCH_SCALING               1 to measure the read's cost vs. size [0]
  BENCH_SCALING_SIZES         market counts for the scaling measurement [10000,100000,1000000 / 2000,20000,50000]
  BENCH_SCALING_DURATION      measured seconds per scaling load [5 / 2]
  BENCH_SCALING_WARMUP        warm-up seconds per scaling load [2 / 1]
  BENCH_SCALING_CONNECTIONS   connections for the scaling loads [10]
  BENCH_LOG_LEVEL             the service's LOG_LEVEL [info, production's default]
  BENCH_DB_POOL_SIZE          DB_POOL_SIZE for the service and the baseline [the service's default]
`;

const KNOWN_FLAGS = new Set(['--quick', '--scaling', '--no-scaling', '--docs', '--no-docs', '--help', '-h']);

/** The run's configuration; exits with the usage (2) on an unknown flag or a bad variable. */
export function parseArguments(argv, env = process.env) {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  const unknownFlags = argv.filter((arg) => !KNOWN_FLAGS.has(arg));
  if (unknownFlags.length > 0) {
    process.stderr.write(`unknown argument(s): ${unknownFlags.join(' ')}\n\n${HELP}`);
    process.exit(2);
  }
  try {
    return loadConfig(argv, env);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
}

function loadConfig(argv, env) {
  const quick = argv.includes('--quick');
  const number = (name, fallback, { integer = false, min = 0 } = {}) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw.replace(/_/g, ''));
    if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
      throw new Error(`${name}=${raw}: expected ${integer ? 'a whole number' : 'a number'} ≥ ${min}`);
    }
    return value;
  };
  const list = (name, fallback) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const values = raw.split(',').map((item) => Number(item.trim().replace(/_/g, '')));
    if (values.some((value) => !Number.isInteger(value) || value < 1)) throw new Error(`${name}=${raw}: expected whole numbers separated by commas`);
    return values;
  };
  const { environmentDefaults } = requireDist('config/environment.js');
  const defaultPoolSize = environmentDefaults().DB_POOL_SIZE;
  const scaling = argv.includes('--scaling') || env.BENCH_SCALING?.trim() === '1';
  return {
    quick,
    markets: number('BENCH_MARKETS', quick ? 20_000 : 100_000, { integer: true, min: 1000 }),
    connections: list('BENCH_CONNECTIONS', quick ? [50] : [10, 50]),
    rounds: number('BENCH_ROUNDS', 2, { integer: true, min: 1 }),
    duration: number('BENCH_DURATION', quick ? 2 : 5, { min: 1 }),
    warmup: number('BENCH_WARMUP', quick ? 1 : 2),
    startupWarmup: number('BENCH_STARTUP_WARMUP', quick ? 2 : 4, { min: 1 }),
    disputeDuration: number('BENCH_DISPUTE_DURATION', quick ? 3 : 10, { min: 1 }),
    readSlugs: number('BENCH_READ_SLUGS', quick ? 1000 : 2000, { integer: true, min: 1 }),
    coldKeys: number('BENCH_COLD_KEYS', 200_000, { integer: true, min: 1 }),
    corsOrigin: env.BENCH_CORS_ORIGIN?.trim() || 'https://partner.example',
    scaling,
    scalingSizes: scaling ? list('BENCH_SCALING_SIZES', quick ? [2000, 20_000, 50_000] : [10_000, 100_000, 1_000_000]) : [],
    scalingDuration: number('BENCH_SCALING_DURATION', quick ? 2 : 5, { min: 1 }),
    scalingWarmup: number('BENCH_SCALING_WARMUP', quick ? 1 : 2),
    scalingConnections: number('BENCH_SCALING_CONNECTIONS', 10, { integer: true, min: 1 }),
    logLevel: env.BENCH_LOG_LEVEL?.trim() || 'info',
    poolSize: number('BENCH_DB_POOL_SIZE', defaultPoolSize, { integer: true, min: 1 }),
    docs: quick ? argv.includes('--docs') : !argv.includes('--no-docs'),
  };
}
