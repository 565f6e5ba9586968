/** Longest URL a log line carries; the rest is counted, not written. */
export const MAX_LOGGED_URL = 512;

export const REDACTED = '[redacted]';

/** Query parameters whose values are credentials by their name (token, api_key, password, ...). */
const CREDENTIAL_NAME = /token|key|secret|pass|pwd|auth|sig|session|credential|bearer|cookie/i;

/** Values in the format of the keys and secrets this service issues, wherever they appear. */
const ISSUED_SECRET = /\b(?:so[ak]_[A-Za-z0-9_-]{16,}|whsec_[A-Za-z0-9+/=_-]{16,})/g;

/** A client's secret never reaches a log line however it was sent: by query name, by issued-key shape, or as the master key. */
export class LogRedaction {
  private readonly masterKeys: string[];

  constructor(masterKey: string | undefined) {
    this.masterKeys = masterKey ? [masterKey] : [];
  }

  url(url: string): string {
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    let safe = path.includes('%') ? path.split('/').map((segment) => (this.encodesSecret(segment) ? REDACTED : segment)).join('/') : path;
    if (query !== -1) safe += `?${this.query(url.slice(query + 1))}`;
    safe = this.text(safe);
    return safe.length <= MAX_LOGGED_URL ? safe : `${safe.slice(0, MAX_LOGGED_URL)}...(${safe.length - MAX_LOGGED_URL} more characters)`;
  }

  text(text: string): string {
    let safe = text.replace(ISSUED_SECRET, REDACTED);
    for (const key of this.masterKeys) safe = safe.replaceAll(key, REDACTED);
    return safe;
  }

  private query(query: string): string {
    return query
      .split('&')
      .map((pair) => {
        const equals = pair.indexOf('=');
        if (equals === -1) return this.encodesSecret(pair) ? REDACTED : pair;
        const name = pair.slice(0, equals);
        if (this.encodesSecret(name)) return REDACTED;
        const shownName = name.includes('%') || name.includes('+') ? safeDecode(name) : name;
        return CREDENTIAL_NAME.test(shownName) || this.encodesSecret(pair.slice(equals + 1)) ? `${name}=${REDACTED}` : pair;
      })
      .join('&');
  }

  /** A secret in a percent-encoded part of a URL (one as sent is found in the whole URL): the part goes whole. */
  private encodesSecret(part: string): boolean {
    if (!part.includes('%')) return false;
    const decoded = safeDecode(part);
    return this.text(decoded) !== decoded;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
