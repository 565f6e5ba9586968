import { ApiProperty } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { SOURCE_MAX_LENGTH } from '../auth/partner-source';
import { ExactText, OptionalTimestamp, PageQueryDto, SearchText } from '../common/page-query.dto';
import { NEW_SLUG_PATTERN, oneOfMessage, RequiredText, StorableText, TextLength, textMessage, VisibleText } from '../common/validation';
import { normalizeSlug, SLUG_MAX_LENGTH } from './market-identity';
import { CHAINS, CONFIDENCES, MARKET_STATUSES, type Chain, type Confidence, type MarketStatus } from './market-state';

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
  @IsString({ message: textMessage(SLUG_MAX_LENGTH) })
  @TextLength(1, SLUG_MAX_LENGTH, { message: `$property must be a non-empty string of at most ${SLUG_MAX_LENGTH} characters after trimming spaces and "/"` })
  @VisibleText()
  @StorableText()
  slug: string;
}

export class ProofDto {
  /** @example "base" */
  @IsDefined()
  @IsIn(CHAINS, { message: oneOfMessage(CHAINS) })
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
  @IsIn(CONFIDENCES, { message: oneOfMessage(CONFIDENCES) })
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
  @OptionalTimestamp()
  resolved_at?: string;
}

export class MarketListQueryDto extends PageQueryDto {
  /**
   * Only this partner source's markets (trimmed, 1 to 64 characters).
   * @example "acme"
   */
  @ExactText(SOURCE_MAX_LENGTH)
  source?: string;

  /**
   * Only markets in this status.
   * @example "resolved"
   */
  @IsOptional()
  @IsIn(MARKET_STATUSES, { message: oneOfMessage(MARKET_STATUSES) })
  status?: MarketStatus;

  /**
   * Part of the slug, 1 to 256 characters, matched as given (not trimmed) in any letter case;
   * `%` and `_` are plain characters, not wildcards.
   * @example "btc"
   */
  @SearchText(SLUG_MAX_LENGTH)
  q?: string;
}
