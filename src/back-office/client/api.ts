import { ErrorCatalogue, type ErrorName } from '../../common/error-catalogue';
import { sentenceFor } from './sentences';

/** A request the API answered with an error envelope (or that never got an envelope). */
export class ApiFailure extends Error {
  constructor(
    readonly code: number,
    /** The envelope's detail: for 4000, every offending field. */
    readonly detail: string,
    readonly retryAfter: number | null,
    /** The answer's x-request-id, which the service's log line of the request carries. */
    readonly requestId: string | null,
  ) {
    super(sentenceFor(code, retryAfter));
    this.name = 'ApiFailure';
  }

  /** Whether the API refused with the catalogue's error `name`. */
  is(name: ErrorName): boolean {
    return this.code === ErrorCatalogue[name].code;
  }

  /** The service failed (5xxx), rather than refused what was asked. */
  get serverSide(): boolean {
    return this.code >= ErrorCatalogue.INTERNAL.code;
  }
}

export const NETWORK_FAILURE = -1;
export const NOT_AN_ENVELOPE = -2;

interface Envelope {
  code: number;
  data?: unknown;
  detail?: string;
}

/** The admin key goes only as `Authorization: Bearer`: never in the URL, never a cookie (`credentials: 'omit'`). Resolves to the envelope's `data`. */
export async function call<T>(key: string | null, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiFailure(NETWORK_FAILURE, '', null, null);
  }
  const requestId = response.headers.get('x-request-id');
  let envelope: Envelope;
  try {
    envelope = (await response.json()) as Envelope;
  } catch {
    throw new ApiFailure(NOT_AN_ENVELOPE, '', null, requestId);
  }
  if (typeof envelope?.code !== 'number') throw new ApiFailure(NOT_AN_ENVELOPE, '', null, requestId);
  if (envelope.code === 0) return envelope.data as T;
  const retryAfter = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
  throw new ApiFailure(envelope.code, envelope.detail ?? '', Number.isFinite(retryAfter) ? retryAfter : null, requestId);
}

/** The query string of the given parameters, leaving out the empty ones. */
export function query(parameters: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== null && value !== undefined && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
