import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { ADMIN_ROLES, type AdminRole } from '../auth/reviewer.entity';
import { IsRfc3339, RequiredText } from '../common/validation';
import { DECISION_TYPES, DISPUTE_STATUSES, type DecisionType, type DisputeStatus } from '../disputes/dispute-state';
import { normalizeSlug, SLUG_MAX_LENGTH, SOURCE_MAX_LENGTH } from '../markets/market-identity';
import { CHAINS, CONFIDENCES, type Chain, type Confidence } from '../markets/market-state';

const text = (max: number) => `$property must be a non-empty string of at most ${max} characters`;
const oneOf = (values: readonly string[]) => `$property must be one of: ${values.join(', ')}`;

export class CreateReviewerDto {
  @RequiredText(200)
  name: string;

  @IsDefined()
  @IsIn(ADMIN_ROLES, { message: oneOf(ADMIN_ROLES) })
  role: AdminRole;
}

export class CreatePartnerDto {
  @RequiredText(SOURCE_MAX_LENGTH)
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
    message: '$property must start with a letter or digit and hold only letters, digits, ".", "_" and "-"',
  })
  source: string;

  @RequiredText(200)
  name: string;
}

export class CreateMarketDto {
  @RequiredText(SOURCE_MAX_LENGTH)
  source: string;

  @IsDefined()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? normalizeSlug(value) : value))
  @IsString({ message: text(SLUG_MAX_LENGTH) })
  @Length(1, SLUG_MAX_LENGTH, { message: `$property must be a non-empty string of at most ${SLUG_MAX_LENGTH} characters after trimming spaces and "/"` })
  slug: string;
}

export class ProofDto {
  @IsDefined()
  @IsIn(CHAINS, { message: oneOf(CHAINS) })
  chain: Chain;

  @RequiredText(200)
  tx_hash: string;
}

export class ResolveMarketDto {
  @RequiredText(200)
  verdict: string;

  @IsDefined()
  @IsIn(CONFIDENCES, { message: oneOf(CONFIDENCES) })
  confidence: Confidence;

  @RequiredText(10000)
  reasoning: string;

  @IsDefined()
  @IsArray({ message: '$property must be an array of 1 to 20 proofs' })
  @ArrayMinSize(1, { message: '$property must be an array of 1 to 20 proofs' })
  @ArrayMaxSize(20, { message: '$property must be an array of 1 to 20 proofs' })
  @ValidateNested({ each: true })
  @Type(() => ProofDto)
  proofs: ProofDto[];

  @IsOptional()
  @IsRfc3339()
  resolved_at?: string;
}

export class DecisionDto {
  @IsDefined()
  @IsIn(DECISION_TYPES, { message: oneOf(DECISION_TYPES) })
  type: DecisionType;

  @RequiredText(4000)
  reason_text: string;
}

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : value);

export class PageQueryDto {
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: '$property must be an integer from 1 to 100' })
  @Min(1, { message: '$property must be an integer from 1 to 100' })
  @Max(100, { message: '$property must be an integer from 1 to 100' })
  limit?: number;

  @IsOptional()
  @IsString({ message: '$property must be given once' })
  cursor?: string;
}

export class DisputeQueueQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(DISPUTE_STATUSES, { message: oneOf(DISPUTE_STATUSES) })
  status?: DisputeStatus;
}
