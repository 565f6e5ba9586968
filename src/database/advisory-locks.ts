/** Every advisory lock the schema takes, as SQL arguments, declared together so that no two purposes share one. */
export const ADVISORY_LOCKS = {
  /** A partner key's: shared by the filings made with it (the key's id is the second key), exclusive for its revocation. */
  partnerKeyClass: 7101,
  /** A reviewer account's, the same way for admin writes. */
  reviewerClass: 7102,
  /** One change-log sequencer at a time. */
  changeLogSequencer: '7103, 1',
  /** One instance deleting expired events at a time. */
  changeLogPruning: '7103, 2',
  /** Instances starting at once would both insert the role's first settings row. */
  sessionDefaults: '7103, 3',
  /** Filings by idempotency key (the second key: a hash of the source and the key). */
  idempotencyKeyClass: 7104,
  /** A partner's limits (webhooks per partner), counted one registration at a time (the second key: the partner's id). */
  partnerLimitsClass: 7105,
  /** Migrations, one instance at a time (the one-key form, apart from the two-key ones): "settlement-oracle migrations". */
  migrations: 7_236_418_905,
} as const;
