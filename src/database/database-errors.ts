/** Classifies errors thrown by the pg driver (directly or wrapped by TypeORM). */

const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

// SQLSTATEs that mean "the database cannot serve us right now", not "the query is wrong".
const UNAVAILABLE_SQLSTATES = new Set([
  '57014', // query_canceled (statement_timeout)
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '55P03', // lock_not_available (lock_timeout)
  '3D000', // invalid_catalog_name: the database is gone
  '28000', // invalid_authorization_specification: the server refuses us
  '28P01', // invalid_password
  '25006', // read_only_sql_transaction: a standby, or a primary turned read-only (a failover under way)
]);

// pg-pool's error for a wait for a connection longer than connectionTimeoutMillis (a new one that
// does not connect in time, or one of a full pool that is not given back in time).
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

// pg's error for a statement not answered within query_timeout: the connection still waits for that answer.
const QUERY_READ_TIMEOUT = 'Query read timeout';

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  POOL_WAIT_TIMEOUT,
  QUERY_READ_TIMEOUT,
  'Client has encountered a connection error',
  'Connection is not established',
  'the database system is',
];

// TypeORM releases a query runner as soon as its connection fails (the pg client's 'error'
// event, e.g. the server terminated the session); a transaction that was between two queries
// then fails with one of these instead of the connection error itself.
// So does a statement made while the schema waits for a primary to migrate it (SchemaState).
const UNAVAILABLE_ERROR_NAMES = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError', 'SchemaPendingError']);

// PostgreSQL's session setup file: an error raised there means no session, whatever its SQLSTATE
// (55000 is also raised by queries' own mistakes). Unlike the messages above, it is not localised.
const SESSION_SETUP_FILE = 'postinit.c';

interface DriverErrorLike {
  code?: unknown;
  message?: unknown;
  constraint?: unknown;
  file?: unknown;
  driverError?: unknown;
}

function driverErrorOf(error: unknown): DriverErrorLike | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const wrapped = (error as DriverErrorLike).driverError;
  return (typeof wrapped === 'object' && wrapped !== null ? wrapped : error) as DriverErrorLike;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const driverError = driverErrorOf(error);
  if (!driverError) return false;
  if (error instanceof Error && UNAVAILABLE_ERROR_NAMES.has(error.name)) return true;
  const code = typeof driverError.code === 'string' ? driverError.code : '';
  if (UNAVAILABLE_ERRNOS.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || driverError.file === SESSION_SETUP_FILE) {
    return true;
  }
  const message = typeof driverError.message === 'string' ? driverError.message : '';
  return UNAVAILABLE_MESSAGES.some((fragment) => message.includes(fragment));
}

/** A wait for a pool connection that timed out: the database's failure, or the instance's overload (DatabaseActivity). */
export function isPoolWaitTimeout(error: unknown): boolean {
  const message = driverErrorOf(error)?.message;
  return typeof message === 'string' && message.includes(POOL_WAIT_TIMEOUT);
}

/** The client stopped waiting for the server's answer (query_timeout): a statement sent after it would wait behind it. */
export function isQueryReadTimeout(error: unknown): boolean {
  const message = driverErrorOf(error)?.message;
  return typeof message === 'string' && message.includes(QUERY_READ_TIMEOUT);
}

export function isUniqueViolation(error: unknown, ...constraints: string[]): boolean {
  const driverError = driverErrorOf(error);
  return driverError?.code === '23505' && constraints.includes(driverError.constraint as string);
}

/** True when PostgreSQL ended the transaction to break a deadlock (it may be run again). */
export function isDeadlock(error: unknown): boolean {
  return driverErrorOf(error)?.code === '40P01';
}

/** What a database failure says, for the log: its SQLSTATE or errno, and its message (never its `detail`, which quotes data). */
export function databaseFailureOf(error: unknown): string | undefined {
  const driverError = driverErrorOf(error);
  if (!driverError) return undefined;
  const message = typeof driverError.message === 'string' ? driverError.message : String(error);
  return typeof driverError.code === 'string' ? `${driverError.code}: ${message}` : message;
}
