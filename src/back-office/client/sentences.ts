/**
 * Every code of the API's error catalogue (contract §2) as a sentence a reviewer can act on;
 * the page never shows an envelope. `{retry}` is replaced by the wait the service asked for.
 * Negative codes are the page's own: the service could not be reached, or answered no envelope.
 */
export const SENTENCES: Record<number, string> = {
  [-1]: 'The service could not be reached. Check your connection and try again.',
  [-2]: 'The service answered with something that is not the API. Try again in a moment.',
  4000: 'Some of what was entered is not valid.',
  4001: 'The page sent a request the service could not read. Reload the page and try again.',
  4010: 'A partner API key is required for this.',
  4011: 'That partner API key is not valid, or has been revoked.',
  4012: 'Your key is not valid or has been revoked. Sign in again with a valid key.',
  4030: "This market belongs to another partner's source.",
  4031: 'Your role does not allow this. Ask an admin.',
  4040: 'That market does not exist.',
  4041: 'That dispute does not exist.',
  4042: 'There is no partner with that source.',
  4043: 'That reviewer does not exist.',
  4044: 'The service does not know this action, or the item is gone. Reload the page and try again.',
  4045: 'That API key does not exist, or belongs to another partner.',
  4046: 'That webhook does not exist, or belongs to another partner.',
  4090: 'This market is not resolved, so it cannot be disputed.',
  4091: 'This market already has a dispute.',
  4092: 'Someone else decided this dispute meanwhile.',
  4093: 'That already exists, or something that looks the same does: choose another source, slug or name.',
  4094: 'This market is no longer monitoring: it has been resolved already.',
  4095: 'That idempotency key was used for another request.',
  4096: 'A request with that idempotency key is still in progress. Wait {retry} and try again.',
  4100: 'A market slug is required.',
  4101: 'A market source is required.',
  4102: 'The changes cursor is older than the events kept. Read the markets again, then continue from the newest event.',
  4130: 'What was entered is too large to send.',
  4290: 'Too many requests. Wait {retry} and try again.',
  5000: 'Something went wrong in the service. Try again; if it keeps happening, tell the operators.',
  5030: 'The service cannot reach its database right now. Try again in a moment.',
  5031: 'The service is busy right now. Wait {retry} and try again.',
};

/** The sentence for `code`; `retryAfter` in seconds, from the answer's Retry-After. */
export function sentenceFor(code: number, retryAfter: number | null = null): string {
  const sentence = SENTENCES[code] ?? `The service refused this with an unexpected error (code ${code}).`;
  const wait = retryAfter === null ? 'a moment' : retryAfter === 1 ? '1 second' : `${retryAfter} seconds`;
  return sentence.replace('{retry}', wait);
}
