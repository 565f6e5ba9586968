import { ApiParam } from '@nestjs/swagger';

/** A partner's source (contract §3): issued at integration, it names the partner in paths and queries. */
export const SOURCE_MAX_LENGTH = 64;
export const SOURCE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';

export function normalizeSource(raw: string): string {
  return raw.trim();
}

export const ApiSourceParam = () =>
  ApiParam({
    name: 'source',
    description: 'The partner\'s source',
    example: 'acme',
    schema: { type: 'string', minLength: 1, maxLength: SOURCE_MAX_LENGTH, pattern: SOURCE_PATTERN },
  });
