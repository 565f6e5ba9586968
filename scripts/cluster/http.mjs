// A request with a JSON answer, on a connection of its own, never rejecting on HTTP errors.
import { request } from 'node:http';

export function httpJson(method, url, { body, headers = {}, timeoutMs = 5_000 } = {}) {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolveAnswer, reject) => {
    const req = request(url, {
      method,
      agent: false,
      timeout: timeoutMs,
      headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}), ...headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolveAnswer({ status: res.statusCode, body: json, text, headers: res.headers });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
