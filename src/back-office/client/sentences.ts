import { ErrorCatalogue, type ErrorName } from '../../common/error-catalogue';

/** Every catalogue error (contract §2) as a sentence a reviewer can act on: the page never shows an envelope. `{retry}` becomes the wait asked for. */
const BY_NAME: Record<ErrorName, string> = {
  INVALID_REQUEST: 'Some of what was entered is not valid.',
  MALFORMED_JSON: 'The page sent a request the service could not read. Reload the page and try again.',
  API_KEY_REQUIRED: 'A partner API key is required for this.',
  API_KEY_INVALID: 'That partner API key is not valid, or has been revoked.',
  ADMIN_CREDENTIALS_INVALID: 'Your key is not valid or has been revoked. Sign in again with a valid key.',
  MARKET_OTHER_SOURCE: "This market belongs to another partner's source.",
  FORBIDDEN: 'Your role does not allow this. Ask an admin.',
  MARKET_NOT_FOUND: 'That market does not exist.',
  DISPUTE_NOT_FOUND: 'That dispute does not exist.',
  PARTNER_NOT_FOUND: 'There is no partner with that source.',
  REVIEWER_NOT_FOUND: 'That reviewer does not exist.',
  ROUTE_NOT_FOUND: 'The service does not know this action, or the item is gone. Reload the page and try again.',
  API_KEY_NOT_FOUND: 'That API key does not exist, or belongs to another partner.',
  WEBHOOK_NOT_FOUND: 'That webhook does not exist, or belongs to another partner.',
  MARKET_NOT_RESOLVED: 'This market is not resolved, so it cannot be disputed.',
  MARKET_ALREADY_DISPUTED: 'This market already has a dispute.',
  DISPUTE_ALREADY_DECIDED: 'Someone else decided this dispute meanwhile.',
  ALREADY_EXISTS: 'That already exists, or something that looks the same does: choose another source, slug or name.',
  MARKET_NOT_MONITORING: 'This market is no longer monitoring: it has been resolved already.',
  IDEMPOTENCY_KEY_REUSED: 'That idempotency key was used for another request.',
  IDEMPOTENCY_KEY_IN_PROGRESS: 'A request with that idempotency key is still in progress. Wait {retry} and try again.',
  SLUG_REQUIRED: 'A market slug is required.',
  SOURCE_REQUIRED: 'A market source is required.',
  CHANGES_CURSOR_EXPIRED: 'The changes cursor is older than the events kept. Read the markets again, then continue from the newest event.',
  PAYLOAD_TOO_LARGE: 'What was entered is too large to send.',
  TOO_MANY_REQUESTS: 'Too many requests. Wait {retry} and try again.',
  INTERNAL: 'Something went wrong in the service. Try again; if it keeps happening, tell the operators.',
  SERVICE_UNAVAILABLE: 'The service cannot reach its database right now. Try again in a moment.',
  SERVER_BUSY: 'The service is busy right now. Wait {retry} and try again.',
};

/** By code, as envelopes carry them; the negative codes are the page's own (no service reached, or no envelope). */
export const SENTENCES: Record<number, string> = {
  [-1]: 'The service could not be reached. Check your connection and try again.',
  [-2]: 'The service answered with something that is not the API. Try again in a moment.',
  ...Object.fromEntries(Object.entries(BY_NAME).map(([name, sentence]) => [ErrorCatalogue[name as ErrorName].code, sentence])),
};

/** The sentence for `code`; `retryAfter` in seconds, from the answer's Retry-After. */
export function sentenceFor(code: number, retryAfter: number | null = null): string {
  const sentence = SENTENCES[code] ?? `The service refused this with an unexpected error (code ${code}).`;
  const wait = retryAfter === null ? 'a moment' : retryAfter === 1 ? '1 second' : `${retryAfter} seconds`;
  return sentence.replace('{retry}', wait);
}
