import { describe, expect, it } from '@jest/globals';
import { LogRedaction, MAX_LOGGED_URL } from './log-redaction';

const MASTER = 'master-key-of-twenty-four+chars/!';
const redaction = new LogRedaction(MASTER);
const partnerKey = 'sok_Xy3kq9-LmN0pQr_sTuVwXyZ0123456789abcdefgh';
const adminKey = 'soa_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abc';

describe('LogRedaction', () => {
  it('redacts the values of query parameters named like credentials, whatever their value', () => {
    expect(redaction.url('/admin/partners?token=abc&limit=5')).toBe('/admin/partners?token=[redacted]&limit=5');
    expect(redaction.url('/x?api_key=1&apiKey=2&X-API-KEY=3&password=4&access%5Ftoken=5&sig=6&q=keep')).toBe(
      '/x?api_key=[redacted]&apiKey=[redacted]&X-API-KEY=[redacted]&password=[redacted]&access%5Ftoken=[redacted]&sig=[redacted]&q=keep',
    );
  });

  it('redacts issued keys, webhook secrets and the master key wherever they are, encoded or not', () => {
    expect(redaction.url(`/oracle/markets/public?slug=${partnerKey}&source=${adminKey}`)).toBe('/oracle/markets/public?slug=[redacted]&source=[redacted]');
    expect(redaction.url(`/${partnerKey}/x`)).toBe('/[redacted]/x');
    expect(redaction.url(`/admin?q=${MASTER}`)).toBe('/admin?q=[redacted]');
    expect(redaction.url(`/admin?q=${encodeURIComponent(MASTER)}`)).toBe('/admin?q=[redacted]');
    expect(redaction.text(`failed with whsec_${'A'.repeat(32)} in it`)).toBe('failed with [redacted] in it');
  });

  it('redacts a part of a URL that holds a secret once percent-decoded, however much of it is encoded', () => {
    const everyByte = (text: string) => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    const webhookSecret = `whsec_${'Ab3+/'.repeat(8)}c2E=`;
    expect(redaction.url(`/oracle/markets/public?slug=${everyByte(partnerKey)}&source=acme`)).toBe('/oracle/markets/public?slug=[redacted]&source=acme');
    expect(redaction.url(`/admin?m=${everyByte(MASTER)}&w=${encodeURIComponent(webhookSecret)}`)).toBe('/admin?m=[redacted]&w=[redacted]');
    expect(redaction.url(`/admin?${everyByte(adminKey)}&${everyByte(adminKey)}=1`)).toBe('/admin?[redacted]&[redacted]');
    expect(redaction.url(`/oracle/${everyByte(adminKey)}/x`)).toBe('/oracle/[redacted]/x');
    expect(redaction.url('/oracle/markets/public?slug=caf%C3%A9%20bar&source=acme')).toBe('/oracle/markets/public?slug=caf%C3%A9%20bar&source=acme');
  });

  it(`cuts a URL to ${MAX_LOGGED_URL} characters and says how many were left out`, () => {
    const long = `/oracle/markets/public?slug=${'a'.repeat(15_000)}`;
    expect(redaction.url(long)).toBe(`${long.slice(0, MAX_LOGGED_URL)}...(${long.length - MAX_LOGGED_URL} more characters)`);
  });

  it('leaves ordinary URLs as they are', () => {
    expect(redaction.url('/oracle/markets/public?slug=btc-above-100k&source=acme')).toBe('/oracle/markets/public?slug=btc-above-100k&source=acme');
    expect(new LogRedaction(undefined).url('/health/live')).toBe('/health/live');
  });
});
