import type { ExecutionContext } from '@nestjs/common';

/** As Reflector.getAllAndOverride (handler, else controller), cached per handler: guards and interceptors ask on every request and the answer never changes. */
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
