import type { Params } from 'nestjs-pino';
import type { Options } from 'pino-http';
import pino from 'pino';
import pretty from 'pino-pretty';
import type { LoggingConfig } from '../config/configuration';
import { LogRedaction } from './log-redaction';
import { requestLogOptions } from './request-log';

/** Lines wait in memory until this much is buffered (one write for many lines)... */
const BATCH_BYTES = 4096;
/** ...or this long, when traffic is light. */
const FLUSH_INTERVAL_MS = 200;
/** Lines waiting beyond this are dropped (and counted) rather than held: memory stays bounded. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

let dropped = 0;

/** Drops the fields where PostgreSQL and TypeORM quote data (a failing row, a key's value, a statement's values): they may hold partners' users' names and reasons. */
export function loggedError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  return withoutQuotedData(pino.stdSerializers.err(error as Error));
}

function withoutQuotedData(serialized: object): Record<string, unknown> {
  const { detail: _detail, parameters: _parameters, driverError, ...kept } = serialized as Record<string, unknown>;
  if (typeof driverError !== 'object' || driverError === null) return kept;
  return { ...kept, driverError: withoutQuotedData(driverError) };
}

/** Log lines dropped because whatever reads stdout did not keep up. */
export function droppedLogLines(): number {
  return dropped;
}

/** Batched, with a bounded buffer (pino's default async mode queues without bound): a stdout reader that falls behind costs lines, counted in oracle_log_lines_dropped_total, never the heap. */
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

/** nestjs-pino's logger and its request line (requestLogOptions), on every route. */
export function loggingOptions(config: LoggingConfig, redaction: LogRedaction): Params {
  // Typed by nestjs-pino for Node's own request and response, which Express's extend.
  const requestLog = requestLogOptions(redaction) as Options;
  return {
    pinoHttp: [
      {
        ...requestLog,
        level: config.level,
        wrapSerializers: false,
        // No `redact`: no line carries headers (the request line's serializers name its fields), and pino's redaction
        // cloned part of every line to look for them.
        serializers: { ...requestLog.serializers, err: loggedError },
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
