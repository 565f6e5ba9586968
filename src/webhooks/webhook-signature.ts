import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** Bytes of a signing secret: Standard Webhooks asks for 24 to 64. */
const SECRET_BYTES = 32;

/** A new signing secret in the Standard Webhooks form, `whsec_` and the base64 of its bytes. */
export const generateSecret = (): string => `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;

/** How long a rotated-out secret still signs, beside the new one. */
export const PREVIOUS_SECRET_HOURS = 24;

/** Standard Webhooks 1.0 headers of one attempt: `body` (the exact bytes sent) signed with each valid secret, space-separated. */
export function signedHeaders(eventId: string, body: string, secrets: readonly string[], at = new Date()): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}
