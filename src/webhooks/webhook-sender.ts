import http from 'node:http';
import https from 'node:https';
import { LRUCache } from 'lru-cache';
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

/** Endpoint origins whose idle keep-alive connections are kept (the least recently used beyond, closed). */
const ORIGINS_KEPT = 1_000;
const agents = new LRUCache<string, http.Agent>({ max: ORIGINS_KEPT, dispose: (agent) => agent.destroy() });

/** One keep-alive agent per origin: attempts to an endpoint reuse its connections. */
function agentFor(target: URL): http.Agent {
  let agent = agents.get(target.origin);
  if (!agent) {
    agent = target.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    agents.set(target.origin, agent);
  }
  return agent;
}

const failed = (error: string, httpStatus: number | null = null): DeliveryOutcome => ({ delivered: false, httpStatus, error });

// No redirect followed; a connection kept alive per origin, each new one's address checked as it connects
// (publicOnlyLookup: the agent hands it to every connection it opens) unless private URLs are allowed. Never throws.
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
      agent: agentFor(target),
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
