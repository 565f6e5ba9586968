/** A handler's `data` already serialized: spliced into the envelope as is, so a cached record is serialized once. */
export class JsonText {
  constructor(readonly json: string) {}

  static of(value: unknown): JsonText {
    return new JsonText(JSON.stringify(value));
  }
}
