import type { ApiError } from './error-catalogue';

/** The two envelopes of every answer of the API (contract §1), built here and only here. */
export interface SuccessEnvelope<T> {
  code: 0;
  msg: 'success';
  data: T;
}

export interface ErrorEnvelope {
  code: number;
  msg: string;
  detail: string;
}

/** The success envelope's fixed members, which the OpenAPI document also states. */
export const SUCCESS = { code: 0, msg: 'success' } as const;

/** What JSON.stringify writes ahead of `data`, so that a spliced envelope has res.json's bytes. */
const SUCCESS_HEAD = `${JSON.stringify(SUCCESS).slice(0, -1)},"data":`;

export function successEnvelope<T>(data: T): SuccessEnvelope<T> {
  return { code: SUCCESS.code, msg: SUCCESS.msg, data };
}

/** The success envelope around `data` already serialized as JSON (a cached record is serialized once). */
export function successEnvelopeJson(dataJson: string): string {
  return `${SUCCESS_HEAD}${dataJson}}`;
}

export function errorEnvelope(error: ApiError): ErrorEnvelope {
  return { code: error.code, msg: error.entry.msg, detail: error.detail };
}
