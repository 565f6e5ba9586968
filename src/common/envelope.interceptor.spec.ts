import { describe, expect, it } from '@jest/globals';
import { Controller, type ExecutionContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { firstValueFrom, of } from 'rxjs';
import { EnvelopeInterceptor } from './envelope.interceptor';
import { JsonText } from './json-text';
import { RawResponse } from './raw-response.decorator';

@Controller()
class EnvelopedRoutes {
  read() {}
}

@RawResponse()
@Controller()
class RawRoutes {
  probe() {}
}

async function intercept(route: Function, handler: string, data: unknown) {
  const module = await Test.createTestingModule({ providers: [EnvelopeInterceptor] }).compile();
  const response = { locals: {} as Record<string, unknown>, headers: {} as Record<string, string>, setHeader: (name: string, value: string) => (response.headers[name] = value) };
  const context = {
    switchToHttp: () => ({ getResponse: () => response }),
    getHandler: () => (route.prototype as Record<string, Function>)[handler],
    getClass: () => route,
  } as unknown as ExecutionContext;
  const body = await firstValueFrom(module.get(EnvelopeInterceptor).intercept(context, { handle: () => of(data) }));
  return { body, response };
}

describe('EnvelopeInterceptor', () => {
  it("wraps a handler's result in the success envelope, code 0 for the log line", async () => {
    const { body, response } = await intercept(EnvelopedRoutes, 'read', { markets: [] });
    expect(body).toEqual({ code: 0, msg: 'success', data: { markets: [] } });
    expect(response.locals.envelopeCode).toBe(0);
  });

  it('splices data already serialized (JsonText) into the envelope as JSON text', async () => {
    const { body, response } = await intercept(EnvelopedRoutes, 'read', JsonText.of({ markets: [{ slug: 'a' }] }));
    expect(JSON.parse(body as string)).toEqual({ code: 0, msg: 'success', data: { markets: [{ slug: 'a' }] } });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('leaves the answers of @RawResponse routes as they are', async () => {
    const { body, response } = await intercept(RawRoutes, 'probe', { status: 'ok' });
    expect(body).toEqual({ status: 'ok' });
    expect(response.locals.envelopeCode).toBeUndefined();
  });
});
