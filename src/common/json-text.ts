/**
 * A handler's `data` already serialized as JSON: the envelope interceptor splices it into the
 * envelope as it is, so a record served many times is serialized once (the public record cache).
 */
export class JsonText {
  constructor(readonly json: string) {}

  static of(value: unknown): JsonText {
    return new JsonText(JSON.stringify(value));
  }
}
