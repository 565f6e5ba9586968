import { HttpException, HttpStatus } from '@nestjs/common';
import { isDatabaseUnavailable } from '../database/database-errors';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';

export const unsupportedBodyCoding = () => new ApiError(ErrorCatalogue.INVALID_REQUEST, 'unsupported body encoding or charset');

/** The body parser's errors: `type` says what went wrong, `status` whose fault it is. */
function bodyParserFailure(error: unknown): { type?: string; status?: number } | undefined {
  if (typeof error !== 'object' || error === null || !('type' in error || 'status' in error)) return undefined;
  const { type, status } = error as { type?: unknown; status?: unknown };
  return { type: typeof type === 'string' ? type : undefined, status: typeof status === 'number' ? status : undefined };
}

export interface FailureContext {
  /** A database failure that is this instance's overload, not the database's (DatabaseActivity). */
  isOverload(error: unknown): boolean;
}

/** The one place anything thrown while serving becomes a catalogued ApiError; `unexpected` marks bugs to log (5000). */
export function toApiError(error: unknown, context?: FailureContext): { apiError: ApiError; unexpected: boolean } {
  if (error instanceof ApiError) return { apiError: error, unexpected: false };
  const expected = (entry: (typeof ErrorCatalogue)[keyof typeof ErrorCatalogue], detail?: string) => ({
    apiError: new ApiError(entry, detail),
    unexpected: false,
  });

  const parser = error instanceof HttpException ? undefined : bodyParserFailure(error);
  if (parser?.type === 'entity.parse.failed') return expected(ErrorCatalogue.MALFORMED_JSON);
  if (parser?.type === 'entity.too.large') return expected(ErrorCatalogue.PAYLOAD_TOO_LARGE);
  if (parser?.type === 'encoding.unsupported' || parser?.type === 'charset.unsupported') {
    return { apiError: unsupportedBodyCoding(), unexpected: false };
  }
  // Anything else the parser blames on the request (a gzip, deflate or br body that does not
  // decompress, a body shorter than its Content-Length) leaves no JSON to read.
  if (parser?.status !== undefined && parser.status >= 400 && parser.status < 500) {
    return expected(ErrorCatalogue.MALFORMED_JSON, 'the body could not be decoded');
  }

  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === HttpStatus.NOT_FOUND || status === HttpStatus.METHOD_NOT_ALLOWED) return expected(ErrorCatalogue.ROUTE_NOT_FOUND);
    if (status === HttpStatus.PAYLOAD_TOO_LARGE) return expected(ErrorCatalogue.PAYLOAD_TOO_LARGE);
    if (status === HttpStatus.TOO_MANY_REQUESTS) return expected(ErrorCatalogue.TOO_MANY_REQUESTS);
    if (status === HttpStatus.SERVICE_UNAVAILABLE) return expected(ErrorCatalogue.SERVICE_UNAVAILABLE);
    if (status < 500) return expected(ErrorCatalogue.INVALID_REQUEST);
  }

  if (context?.isOverload(error)) return expected(ErrorCatalogue.SERVER_BUSY);
  if (isDatabaseUnavailable(error)) return expected(ErrorCatalogue.SERVICE_UNAVAILABLE);
  return { apiError: new ApiError(ErrorCatalogue.INTERNAL), unexpected: true };
}
