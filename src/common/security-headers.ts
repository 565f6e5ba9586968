import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** helmet's strict defaults: the security headers of every API answer (not the docs UI's). */
export const apiSecurityHeaders = helmet();

/**
 * The headers `apiSecurityHeaders` sets, in its order, as a flat `[name, value, …]` list for
 * `writeHead`. They do not depend on the request (no CSP nonces), so they are taken once from
 * the middleware itself rather than restated.
 */
export function recordedSecurityHeaders(): string[] {
  const headers: string[] = [];
  let finished = false;
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.push(name, String(value)),
    removeHeader: () => undefined,
  };
  apiSecurityHeaders({} as IncomingMessage, recorder as unknown as ServerResponse, () => {
    finished = true;
  });
  if (!finished) throw new Error('helmet did not set its headers synchronously');
  return headers;
}
