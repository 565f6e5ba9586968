/** The status and headers of a raw HTTP/1.x answer's head (the bytes before its blank line). */
export interface HttpHead {
  status: number;
  /** Header names in lower case; a repeated header's values joined by ", ". */
  headers: Record<string, string>;
}

/** Parses an answer's head, as read off the wire by the raw clients of the fuzz and fault suites. */
export function parseHead(head: Buffer): HttpHead {
  const [statusLine, ...lines] = head.toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (!status) throw new Error(`bad status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { status: Number(status), headers };
}
