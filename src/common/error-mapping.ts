import { HttpException, HttpStatus } from '@nestjs/common';
import { isDatabaseUnavailable } from '../database/database-errors';
import { ApiError, ErrorCatalogue } from './error-catalogue';

interface BodyParserError {
  type?: unknown;
  status?: unknown;
}

function bodyParserErrorType(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const type = (error as BodyParserError).type;
  return typeof type === 'string' ? type : undefined;
}

/**
 * Maps anything thrown while serving a request to a catalogued ApiError.
 * Returns `unexpected: true` for failures that must be logged as bugs (5000).
 */
export function toApiError(error: unknown): { apiError: ApiError; unexpected: boolean } {
  if (error instanceof ApiError) return { apiError: error, unexpected: false };

  const parserType = bodyParserErrorType(error);
  if (parserType === 'entity.parse.failed') {
    return { apiError: new ApiError(ErrorCatalogue.MALFORMED_JSON), unexpected: false };
  }
  if (parserType === 'entity.too.large') {
    return { apiError: new ApiError(ErrorCatalogue.PAYLOAD_TOO_LARGE), unexpected: false };
  }
  if (parserType === 'encoding.unsupported' || parserType === 'charset.unsupported') {
    return {
      apiError: new ApiError(ErrorCatalogue.INVALID_REQUEST, 'unsupported body encoding or charset'),
      unexpected: false,
    };
  }

  if (error instanceof HttpException) {
    switch (error.getStatus()) {
      case HttpStatus.NOT_FOUND:
      case HttpStatus.METHOD_NOT_ALLOWED:
        return { apiError: new ApiError(ErrorCatalogue.ROUTE_NOT_FOUND), unexpected: false };
      case HttpStatus.PAYLOAD_TOO_LARGE:
        return { apiError: new ApiError(ErrorCatalogue.PAYLOAD_TOO_LARGE), unexpected: false };
      case HttpStatus.TOO_MANY_REQUESTS:
        return { apiError: new ApiError(ErrorCatalogue.TOO_MANY_REQUESTS), unexpected: false };
      case HttpStatus.SERVICE_UNAVAILABLE:
        return { apiError: new ApiError(ErrorCatalogue.SERVICE_UNAVAILABLE), unexpected: false };
      default:
        if (error.getStatus() < 500) {
          return { apiError: new ApiError(ErrorCatalogue.INVALID_REQUEST), unexpected: false };
        }
    }
  }

  if (isDatabaseUnavailable(error)) {
    return { apiError: new ApiError(ErrorCatalogue.SERVICE_UNAVAILABLE), unexpected: false };
  }
  return { apiError: new ApiError(ErrorCatalogue.INTERNAL), unexpected: true };
}
