import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsIn, Matches } from 'class-validator';
import { PageQueryDto, SearchText } from '../common/page-query.dto';
import { oneOfMessage, RequiredText } from '../common/validation';
import { SOURCE_MAX_LENGTH, SOURCE_PATTERN } from './partner-source';
import { ADMIN_ROLES, type AdminRole } from './admin-role';

/** A partner's name: the longest text `q` of GET /admin/partners can match. */
const PARTNER_NAME_MAX_LENGTH = 200;

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
  @IsIn(ADMIN_ROLES, { message: oneOfMessage(ADMIN_ROLES) })
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

export class PartnerListQueryDto extends PageQueryDto {
  /**
   * Part of the source or the name, 1 to 200 characters, matched as given (not trimmed) in any
   * letter case; `%` and `_` are plain characters, not wildcards.
   * @example "acme"
   */
  @SearchText(PARTNER_NAME_MAX_LENGTH)
  q?: string;
}
