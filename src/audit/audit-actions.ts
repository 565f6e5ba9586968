/**
 * What the admin writes record in the trail, declared once: the writes name one of these (the
 * compiler holds them to it) and the back office offers them as the trail's action filter. Older
 * rows may name actions since retired (`reviewer.key_replaced`): the filter takes any text.
 */
export const AUDIT_ACTIONS = [
  'dispute.decided',
  'market.created',
  'market.resolved',
  'partner.created',
  'key.issued',
  'key.revoked',
  'reviewer.created',
  'reviewer.revoked',
  'webhook.created',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.redelivery_queued',
  'demo.keys_issued',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
