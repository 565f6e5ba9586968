import type { Params } from 'nestjs-pino';
import pino from 'pino';
import pretty from 'pino-pretty';
import type { LoggingConfig } from '../config/configuration';

/** Lines wait in memory until this much is buffered (one write for many lines)... */
const BATCH_BYTES = 4096;
/** ...or this long, when traffic is light. */
const FLUSH_INTERVAL_MS = 200;
/** Lines waiting beyond this are dropped (and counted) rather than held: memory stays bounded. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

let dropped = 0;

/**
 * An error as logged: pino's form of it, without the fields in which PostgreSQL and TypeORM
 * quote the data (a failing row, a key's value, a statement's values: a partner's user's name
 * and reason, say). Its type, message, SQLSTATE, constraint, statement and stack stay.
 */
export function loggedError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  return withoutQuotedData(pino.stdSerializers.err(error as Error));
}

/** `serialized` (an error as pino serializes it, its cause within) without `detail` and `parameters`. */
function withoutQuotedData(serialized: object): Record<string, unknown> {
  const { detail: _detail, parameters: _parameters, driverError, ...kept } = serialized as Record<string, unknown>;
  if (typeof driverError !== 'object' || driverError === null) return kept;
  return { ...kept, driverError: withoutQuotedData(driverError) };
}

/** Log lines dropped because whatever reads stdout did not keep up. */
export function droppedLogLines(): number {
  return dropped;
}

/**
 * Where the lines go: stdout, in batches written asynchronously, with a bounded buffer. One
 * write per line (pino's synchronous mode) cost a system call per request; pino's default
 * asynchronous mode queued lines without bound under sustained load, until the heap ran out.
 * Here a reader of stdout that falls behind (a wedged log shipper) costs lines, counted in
 * oracle_log_lines_dropped_total, never the service; what is buffered is written at exit.
 */
export function logDestination(fd = 1): pino.DestinationStream {
  const destination = pino.destination({
    dest: fd,
    sync: false,
    minLength: BATCH_BYTES,
    maxLength: MAX_BUFFERED_BYTES,
    periodicFlush: FLUSH_INTERVAL_MS,
  });
  destination.on('drop', () => dropped++);
  // stdout gone (its reader closed the pipe): the lines are lost, the service goes on.
  destination.on('error', () => dropped++);
  process.once('exit', () => {
    if (!(destination as unknown as { destroyed: boolean }).destroyed) destination.flushSync();
  });
  return destination;
}

/**
 * The application's pino logger (through nestjs-pino's LoggerService; request lines are
 * RequestObservationMiddleware's pino-http, a child of it). Credentials are redacted should they
 * ever be logged, and errors are logged without the data their database fields quote (loggedError).
 */
export function loggingOptions(config: LoggingConfig): Params {
  return {
    forRoutes: [],
    pinoHttp: [
      {
        level: config.level,
        wrapSerializers: false,
        serializers: { err: loggedError },
        redact: {
          paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
          censor: '[redacted]',
        },
      },
      readsAsText(config) ? pretty(PRETTY) : logDestination(),
    ],
  };
}

/** One line a request for a person: its URL, code and time; the rest is in the JSON form. */
const PRETTY = {
  colorize: true,
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: 'pid,hostname,context,req,res,reqId,client,route,code,responseTime,partner,actor',
  messageFormat: '{if context}[{context}] {end}{msg}{if code}: {code} in {responseTime} ms{end}',
};

/** Whether lines are written for a person (LOG_FORMAT): by default, in the zero-setup mode on a terminal. */
export function readsAsText(config: LoggingConfig): boolean {
  return config.format === 'pretty' || (config.format === 'auto' && config.zeroSetup && process.stdout.isTTY === true);
}
