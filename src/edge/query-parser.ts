import { parse } from 'node:querystring';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';

export const MAX_QUERY_PARAMETERS = 1000;

/**
 * Express's query parser, without its silent cut: Node's querystring keeps the first 1,000
 * parameters and drops the rest (a 1,100-parameter query ending in `slug` read as one without
 * a slug: 4100). More parameters than that is a 4000 naming the limit.
 */
export function parseQuery(text: string | null): Record<string, unknown> {
  if (!text) return {};
  let parameters = 1;
  for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) {
    if (++parameters > MAX_QUERY_PARAMETERS) {
      throw new ApiError(ErrorCatalogue.INVALID_REQUEST, `a query may hold at most ${MAX_QUERY_PARAMETERS} parameters`);
    }
  }
  return parse(text, '&', '=', { maxKeys: 0 });
}
