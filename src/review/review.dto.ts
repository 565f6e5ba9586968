import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { ADMIN_ROLES, type AdminRole } from '../auth/reviewer.entity';
import { YEARS_0001_TO_9999 } from '../common/rfc3339';
import { IsRfc3339, NEW_SLUG_PATTERN, NON_EMPTY_PATTERN, RequiredText, StorableText, TEXT_PATTERN, TextLength, Trim, VisibleText } from '../common/validation';
import { DECISION_TYPES, DISPUTE_STATUSES, type DecisionType, type DisputeStatus } from '../disputes/dispute-state';
import { normalizeSlug, SLUG_MAX_LENGTH, SOURCE_MAX_LENGTH } from '../markets/market-identity';
import { CHAINS, CONFIDENCES, MARKET_STATUSES, type Chain, type Confidence, type MarketStatus } from '../markets/market-state';
import { CURSOR_PATTERN, NOT_A_CURSOR } from './cursor';

/** A partner source: it appears in paths. */
export const SOURCE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';

/** A partner's name: the longest text `q` of GET /admin/partners can match. */
const PARTNER_NAME_MAX_LENGTH = 200;

const text = (max: number) => `$property must be a non-empty string of at most ${max} characters`;
const oneOf = (values: readonly string[]) => `$property must be one of: ${values.join(', ')}`;

/** An optional search text (`q`): 1 to `max` characters, taken as given (not trimmed), storable. */
const SearchText = (max: number) =>
  applyDecorators(
    ApiProperty({ type: 'string', minLength: 1, maxLength: max, pattern: NON_EMPTY_PATTERN, required: false }),
    IsOptional(),
    IsString({ message: text(max) }),
    TextLength(1, max, { message: text(max) }),
    StorableText(),
  );

export class CreateReviewerDto {
  /**
   * Stored in NFC. Unique as people read it: no other account's, nor "master" (the master key's),
   * in any letter case or in look-alike letters (Unicode's confusable skeleton: "mаster" with a
   * Cyrillic "а" is "master").
   * @example "alice"
   */
  @RequiredText(200, { name: true })
  name: string;

  /**
   * `admin` may do everything; `reviewer` may read disputes and record decisions.
   * @example "reviewer"
   */
  @IsDefined()
  @IsIn(ADMIN_ROLES, { message: oneOf(ADMIN_ROLES) })
  role: AdminRole;
}

export class CreatePartnerDto {
  /**
   * The partner's source identifier, issued at integration time. Unique as people read it
   * (Unicode's confusable skeleton: "acme1" is "acmel"); letter case counts.
   * @example "acme"
   */
  @ApiProperty({ pattern: SOURCE_PATTERN })
  @RequiredText(SOURCE_MAX_LENGTH)
  @Matches(new RegExp(SOURCE_PATTERN), {
    message: '$property must start with a letter or digit and hold only letters, digits, ".", "_" and "-"',
  })
  source: string;

  /**
   * Stored in NFC; unique as people read it, as the source is.
   * @example "Acme Markets Ltd."
   */
  @RequiredText(PARTNER_NAME_MAX_LENGTH)
  name: string;
}

export class CreateMarketDto {
  /**
   * An existing partner's source.
   * @example "acme"
   */
  @RequiredText(SOURCE_MAX_LENGTH)
  source: string;

  /**
   * Leading and trailing spaces and "/" are removed; stored in NFC. Unique within the source as
   * people read it (Unicode's confusable skeleton: "café" in one code point or two is one slug).
   * Partners type it: no character that does not show (controls, zero-width characters,
   * direction marks, fillers, variation selectors).
   * @example "btc-above-100k-2026"
   */
  @ApiProperty({ type: 'string', minLength: 1, maxLength: SLUG_MAX_LENGTH, pattern: NEW_SLUG_PATTERN })
  @IsDefined()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? normalizeSlug(value) : value))
  @IsString({ message: text(SLUG_MAX_LENGTH) })
  @TextLength(1, SLUG_MAX_LENGTH, { message: `$property must be a non-empty string of at most ${SLUG_MAX_LENGTH} characters after trimming spaces and "/"` })
  @VisibleText()
  @StorableText()
  slug: string;
}

export class ProofDto {
  /** @example "base" */
  @IsDefined()
  @IsIn(CHAINS, { message: oneOf(CHAINS) })
  chain: Chain;

  /** @example "0x8f2a559490c1c3a6a1b7b7d3a1e3f1c2b4d5e6f708192a3b4c5d6e7f8091a2b3" */
  @RequiredText(200)
  tx_hash: string;
}

export class ResolveMarketDto {
  /** @example "YES" */
  @RequiredText(200)
  verdict: string;

  /** @example "HIGH" */
  @IsDefined()
  @IsIn(CONFIDENCES, { message: oneOf(CONFIDENCES) })
  confidence: Confidence;

  /** @example "BTC/USD closed at 101,250 on the reference exchange on 2026-10-31." */
  @RequiredText(10000)
  reasoning: string;

  /** 1 to 20 on-chain proofs, kept in this order. */
  @IsDefined()
  @IsArray({ message: '$property must be an array of 1 to 20 proofs' })
  @ArrayMinSize(1, { message: '$property must be an array of 1 to 20 proofs' })
  @ArrayMaxSize(20, { message: '$property must be an array of 1 to 20 proofs' })
  // An array in the array would pass ValidateNested (it walks nested arrays) and reach the insert.
  @IsObject({ each: true, message: '$property must be an array of 1 to 20 proofs, each an object' })
  @ValidateNested({ each: true })
  @Type(() => ProofDto)
  proofs: ProofDto[];

  /**
   * RFC 3339 timestamp; the server's time when omitted. Once at UTC it must fall within years
   * 0001 to 9999 (4000 otherwise): an offset can move `0001-01-01T00:30:00+01:00` out of them.
   * @example "2026-11-01T12:00:00Z"
   */
  @ApiProperty({ type: 'string', format: 'date-time', pattern: YEARS_0001_TO_9999, required: false })
  @IsOptional()
  @IsRfc3339()
  resolved_at?: string;
}

export class DecisionDto {
  /**
   * `keep` retains the market's verdict; `override` adopts the submitter's selection.
   * @example "keep"
   */
  @IsDefined()
  @IsIn(DECISION_TYPES, { message: oneOf(DECISION_TYPES) })
  type: DecisionType;

  /** @example "The official source confirms the close above 100k." */
  @RequiredText(4000)
  reason_text: string;
}

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : value);

export class PageQueryDto {
  /**
   * Page size, 1 to 100 (50 when omitted).
   * @example 20
   */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100, required: false })
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: '$property must be an integer from 1 to 100' })
  @Min(1, { message: '$property must be an integer from 1 to 100' })
  @Max(100, { message: '$property must be an integer from 1 to 100' })
  limit?: number;

  /** The `next_cursor` of the previous page. */
  @ApiProperty({ type: 'string', pattern: CURSOR_PATTERN, required: false })
  @IsOptional()
  @IsString({ message: '$property must be given once' })
  @Matches(new RegExp(CURSOR_PATTERN), { message: `$property ${NOT_A_CURSOR}` })
  cursor?: string;
}

export class DisputeQueueQueryDto extends PageQueryDto {
  /**
   * Only disputes in this status (all when omitted: the open ones first).
   * @example "open"
   */
  @IsOptional()
  @IsIn(DISPUTE_STATUSES, { message: oneOf(DISPUTE_STATUSES) })
  status?: DisputeStatus;
}

export class MarketListQueryDto extends PageQueryDto {
  /**
   * Only this partner source's markets (trimmed, 1 to 64 characters).
   * @example "acme"
   */
  @ApiProperty({ type: 'string', minLength: 1, maxLength: SOURCE_MAX_LENGTH, pattern: TEXT_PATTERN, required: false })
  @IsOptional()
  @Trim()
  @IsString({ message: text(SOURCE_MAX_LENGTH) })
  @TextLength(1, SOURCE_MAX_LENGTH, { message: text(SOURCE_MAX_LENGTH) })
  @StorableText()
  source?: string;

  /**
   * Only markets in this status.
   * @example "resolved"
   */
  @IsOptional()
  @IsIn(MARKET_STATUSES, { message: oneOf(MARKET_STATUSES) })
  status?: MarketStatus;

  /**
   * Part of the slug, 1 to 256 characters, matched as given (not trimmed) in any letter case;
   * `%` and `_` are plain characters, not wildcards.
   * @example "btc"
   */
  @SearchText(SLUG_MAX_LENGTH)
  q?: string;
}

export class PartnerListQueryDto extends PageQueryDto {
  /**
   * Part of the source or the name, 1 to 200 characters, matched as given (not trimmed) in any
   * letter case; `%` and `_` are plain characters, not wildcards.
   * @example "acme"
   */
  @SearchText(PARTNER_NAME_MAX_LENGTH)
  q?: string;
}
