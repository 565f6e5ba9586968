import { describe, expect, it } from '@jest/globals';
import type { ArgumentMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CreateReviewerDto } from '../auth/accounts.dto';
import { EnvelopeValidationPipe, MAX_FIELD_DEPTH } from './envelope-validation.pipe';
import { NoBody, NoQuery } from './no-fields';
import { ParseIdPipe } from './validation';

async function pipes() {
  const module = await Test.createTestingModule({ providers: [EnvelopeValidationPipe, ParseIdPipe] }).compile();
  return { validation: module.get(EnvelopeValidationPipe), ids: module.get(ParseIdPipe) };
}

const body = (metatype: Function): ArgumentMetadata => ({ type: 'body', metatype: metatype as ArgumentMetadata['metatype'] });
const query = (metatype: Function): ArgumentMetadata => ({ type: 'query', metatype: metatype as ArgumentMetadata['metatype'] });

describe('EnvelopeValidationPipe', () => {
  it('turns a valid body into its DTO', async () => {
    const { validation } = await pipes();
    const dto = await validation.transform({ name: 'alice', role: 'reviewer' }, body(CreateReviewerDto));
    expect(dto).toBeInstanceOf(CreateReviewerDto);
    expect(dto).toEqual({ name: 'alice', role: 'reviewer' });
  });

  it('words one 4000 naming each offending field: required, unknown, or its rule', async () => {
    const { validation } = await pipes();
    await expect(validation.transform({ role: 'owner', extra: 1 }, body(CreateReviewerDto))).rejects.toMatchObject({
      code: 4000,
      detail: 'extra is not a known field; name is required; role must be one of: admin, reviewer',
    });
  });

  it('answers 4001 to a body that is not a JSON object, and takes an absent body where the route takes none', async () => {
    const { validation } = await pipes();
    for (const value of [[], 'text', null]) {
      await expect(validation.transform(value, body(CreateReviewerDto))).rejects.toMatchObject({ code: 4001, detail: 'the body must be a JSON object' });
    }
    await expect(validation.transform(undefined, body(NoBody))).resolves.toEqual({});
    await expect(validation.transform({ any: 1 }, body(NoBody))).rejects.toMatchObject({ code: 4000, detail: 'any is not a known field' });
    await expect(validation.transform({ page: '2' }, query(NoQuery))).rejects.toMatchObject({ code: 4000, detail: 'page is not a known field' });
  });

  it('refuses a field nested past its bound before class-transformer recurses into it', async () => {
    const { validation } = await pipes();
    let deep: unknown = 'x';
    for (let i = 0; i < MAX_FIELD_DEPTH + 1; i++) deep = [deep];
    await expect(validation.transform({ name: deep, role: 'admin' }, body(CreateReviewerDto))).rejects.toMatchObject({
      code: 4000,
      detail: 'name is nested too deeply',
    });
  });

  it('leaves what is no DTO (a path parameter) to the pipes that take it', async () => {
    const { validation } = await pipes();
    await expect(validation.transform('0042', { type: 'param', data: 'id', metatype: String })).resolves.toBe('0042');
  });
});

describe('ParseIdPipe', () => {
  it('reads a path id by the rule of ids in bodies, and words a 4000 naming the parameter otherwise', async () => {
    const { ids } = await pipes();
    expect(ids.transform('0042', { type: 'param', data: 'id' })).toBe('42');
    for (const raw of ['0', '-1', 'abc', '1.5', '99999999999999999999']) {
      expect(() => ids.transform(raw, { type: 'param', data: 'id' })).toThrow(expect.objectContaining({ code: 4000, detail: 'id must be a positive integer' }));
    }
  });
});
