import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { generateSecret, signedHeaders } from './webhook-signature';

describe('webhook signatures', () => {
  it('are Standard Webhooks signatures any of whose secrets verifies the body', () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = '{"type":"market.created","data":{"sequence":1}}';
    const headers = signedHeaders('evt_1', body, [current, previous]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow('No matching signature found');
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow('No matching signature found');
  });
});
