import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { EnvelopeValidationPipe } from '../common/validation';
import { plainSubmission, SubmitDisputeDto } from './submit-dispute.dto';

const pipe = new EnvelopeValidationPipe();
const BODY = { type: 'body', metatype: SubmitDisputeDto, data: '' } as const;

/** What the service reads of a submission. */
const fieldsOf = (dto: SubmitDisputeDto) => ({
  market_id: dto.market_id,
  submitter_id: dto.submitter_id,
  submitter_name: dto.submitter_name,
  submitter_selection: dto.submitter_selection,
  reason_text: dto.reason_text,
  submitted_at: dto.submitted_at?.getTime(),
});

const edgeTexts = [
  '', ' ', '\t\n', ' x ', '\ufe0f', 'a\ufe0f', '\u0000', 'a\ud800', '\udc00b', '😀', ' 😀 ', '\u00a0x\u2028',
  'x'.repeat(128), 'x'.repeat(129), 'x'.repeat(200), 'x'.repeat(201), '😀'.repeat(100), '😀'.repeat(101),
  `${'\ufe0f'.repeat(4)}${'x'.repeat(199)}`, 'x'.repeat(4000), ` ${'x'.repeat(4000)} `, 'x'.repeat(4001),
];
const oddValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined), // the field left out
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
const text = fc.oneof(
  { weight: 12, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom(...edgeTexts) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: oddValue },
);
const marketId = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1 }) },
  { weight: 2, arbitrary: fc.nat().map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 53 - 1, 2 ** 53, 1e21, '0', '01', ' 1', '1 ', '1e3', '', '+1', '9007199254740991', '9007199254740992', '12345678901234567890', '123456789012345678901'),
  },
  { weight: 1, arbitrary: oddValue },
);
const submittedAt = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc.constantFrom('2026-11-02T09:30:00Z', '2026-11-02T09:30:00.5+02:00', '2026-02-30T00:00:00Z', 'yesterday', ''),
  fc.string({ maxLength: 25 }),
  oddValue,
);
const extraKey = fc.constantFrom('note', '__proto__', 'constructor', 'toString', 'market_id ', 'MARKET_ID');

/** A body as JSON.parse makes it (own `__proto__` members included), from its members. */
const body = fc
  .tuple(
    fc.record({
      market_id: marketId,
      submitter_id: text,
      submitter_name: text,
      submitter_selection: text,
      reason_text: text,
      submitted_at: submittedAt,
    }),
    fc.oneof(
      { weight: 5, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.tuple(extraKey, fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 2 }), fc.integer(), { maxKeys: 1 }))) },
    ),
  )
  .map(([fields, extra]) => {
    const members = Object.entries(fields).filter(([, value]) => value !== undefined);
    if (extra) members.splice(members.length > 0 ? 1 : 0, 0, extra);
    return JSON.parse(`{${members.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`) as unknown;
  });

describe('plainSubmission', () => {
  it('accepts only what the validation pipe accepts, and makes the same submission of it', async () => {
    const tally = { accepted: 0, leftToThePipe: 0, rejectedByBoth: 0 };
    await fc.assert(
      fc.asyncProperty(body, async (sent) => {
        const plain = plainSubmission(sent);
        const piped = await pipe.transform(structuredClone(sent), BODY).then(
          (dto) => ({ dto: dto as SubmitDisputeDto }),
          (error: unknown) => ({ error }),
        );
        if (plain) {
          tally.accepted++;
          expect(piped).toEqual({ dto: expect.any(SubmitDisputeDto) });
          expect(fieldsOf(plain)).toEqual(fieldsOf((piped as { dto: SubmitDisputeDto }).dto));
        } else if ('dto' in piped) tally.leftToThePipe++;
        else tally.rejectedByBoth++;
      }),
      { numRuns: 3000 },
    );
    process.stdout.write(`plainSubmission vs the pipe over 3000 bodies: ${JSON.stringify(tally)}\n`);
    // The generator reaches every kind of outcome, or the property proves little.
    expect(tally.accepted).toBeGreaterThan(300);
    expect(tally.leftToThePipe).toBeGreaterThan(30);
    expect(tally.rejectedByBoth).toBeGreaterThan(300);
  });

  it('takes the fields as the pipe does: trimmed text, ids from digit strings, an RFC 3339 time or none', () => {
    const plain = plainSubmission({
      market_id: '0042',
      submitter_id: '  u-1 ',
      submitter_name: 'Ada',
      submitter_selection: 'NO\n',
      reason_text: '\tcorrected',
      submitted_at: 'not a time',
    });
    expect(plain && fieldsOf(plain)).toEqual({
      market_id: 42,
      submitter_id: 'u-1',
      submitter_name: 'Ada',
      submitter_selection: 'NO',
      reason_text: 'corrected',
      submitted_at: undefined,
    });
    expect(plainSubmission({ ...plain, submitted_at: '2026-11-02T09:30:00+01:00' })?.submitted_at).toEqual(new Date('2026-11-02T08:30:00Z'));
  });

  it('leaves anything but a plain object to the pipe', () => {
    for (const sent of [null, [], 'x', 1, JSON.parse('{"__proto__":{}}')]) expect(plainSubmission(sent)).toBeUndefined();
  });
});
