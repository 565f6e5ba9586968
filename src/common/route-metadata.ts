import type { ExecutionContext } from '@nestjs/common';

/**
 * A reader of one route metadata key (set on the handler, else on its controller), as
 * Reflector.getAllAndOverride reads it, remembered per handler: the guards, the rate limits and
 * the envelope interceptor ask on every request, and the answer never changes.
 */
export function routeMetadata<T>(key: string): (context: ExecutionContext) => T | undefined {
  const known = new WeakMap<Function, { value: T | undefined }>();
  return (context) => {
    const handler = context.getHandler();
    let entry = known.get(handler);
    if (!entry) {
      entry = { value: Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, context.getClass()) };
      known.set(handler, entry);
    }
    return entry.value;
  };
}
