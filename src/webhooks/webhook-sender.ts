import http from 'node:http';
import https from 'node:https';
import { parseWebhookUrl, publicOnlyLookup, refusedLiteralHost } from './url-policy';

/** An attempt succeeds on a 2xx answer within this (contract §7). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Bytes of an answer read at most; the rest is never read. */
const ANSWER_BYTES_READ = 64 * 1024;

/** How an attempt ended: `httpStatus` null when no answer came, `error` null when it was delivered. */
export interface DeliveryOutcome {
  delivered: boolean;
  httpStatus: number | null;
  error: string | null;
}

const failed = (error: string, httpStatus: number | null = null): DeliveryOutcome => ({ delivered: false, httpStatus, error });

// No redirect followed, and a new connection each time, its address checked as it connects (publicOnlyLookup) unless
// private URLs are allowed. Never throws: every failure is an outcome.
export async function postDelivery(url: string, body: string, headers: Record<string, string>, allowPrivate: boolean, stop: AbortSignal): Promise<DeliveryOutcome> {
  let target: URL;
  try {
    target = parseWebhookUrl(url, allowPrivate);
  } catch (error) {
    return failed(`refused: ${(error as Error).message}`);
  }
  const literal = allowPrivate ? null : refusedLiteralHost(target);
  if (literal) return failed(literal);
  const signal = AbortSignal.any([stop, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<DeliveryOutcome>((resolve) => {
    const request = client.request(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'settlement-oracle-webhooks/1' },
      agent: false,
      lookup: allowPrivate ? undefined : publicOnlyLookup,
      signal,
    });
    request.on('response', (answer) => {
      const status = answer.statusCode ?? 0;
      let read = 0;
      const done = () => {
        answer.destroy();
        resolve(status >= 200 && status < 300 ? { delivered: true, httpStatus: status, error: null } : failed(status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`, status));
      };
      answer.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= ANSWER_BYTES_READ) done();
      });
      answer.on('end', done);
      answer.on('error', done);
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (signal.aborted) resolve(failed(stop.aborted ? 'the instance stopped during the attempt' : `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`));
      else resolve(failed(error.code === 'EADDRNOTPUBLIC' ? error.message : `${error.code ?? 'error'}: ${error.message}`.slice(0, 200)));
    });
    request.end(body);
  });
}
