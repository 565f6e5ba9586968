import { parse } from 'node:querystring';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';

export const MAX_QUERY_PARAMETERS = 1000;

/** Node's querystring silently drops parameters past 1,000: more than that is a 4000 naming the limit. */
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
