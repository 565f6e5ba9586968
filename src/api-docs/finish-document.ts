import type { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, unknown>;
const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** 3.0's `nullable` beside `allOf`/`$ref` admits no null (clients read `decision` as always present); in 3.1 null is a type. */
function nullableAsType(schema: Schema): void {
  if (schema.nullable !== true) return;
  delete schema.nullable;
  const { allOf } = schema;
  if (Array.isArray(allOf) && allOf.length === 1) {
    delete schema.allOf;
    delete schema.type;
    schema.oneOf = [allOf[0], { type: 'null' }];
  } else if (typeof schema.type === 'string') {
    schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  }
}

function eachSchema(node: unknown, visit: (schema: Schema) => void): void {
  if (Array.isArray(node)) return node.forEach((item) => eachSchema(item, visit));
  if (!isObject(node)) return;
  if ('type' in node || 'nullable' in node || 'allOf' in node || 'properties' in node) visit(node);
  for (const value of Object.values(node)) eachSchema(value, visit);
}

/** The component names a schema refers to, directly or through its properties and items. */
function referencedNames(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => referencedNames(item, found));
  else if (isObject(node)) {
    if (typeof node.$ref === 'string') found.add(node.$ref.replace('#/components/schemas/', ''));
    for (const value of Object.values(node)) referencedNames(value, found);
  }
  return found;
}

/** States what the decorators cannot: null as a type (3.1), bodies refusing unknown members (nested too) as the validation pipe does, routes without credentials. */
export function finishDocument(document: OpenAPIObject): OpenAPIObject {
  document.openapi = '3.1.0';
  eachSchema(document.components?.schemas, nullableAsType);
  eachSchema(document.paths, nullableAsType);
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const bodies = new Set<string>();
  for (const path of Object.values(document.paths)) {
    for (const operation of Object.values(path) as Schema[]) {
      if (!isObject(operation)) continue;
      operation.security ??= [];
      referencedNames(operation.requestBody, bodies);
    }
  }
  for (const name of bodies) for (const nested of referencedNames(schemas[name])) bodies.add(nested);
  for (const name of bodies) if (schemas[name]) schemas[name].additionalProperties = false;
  return document;
}
