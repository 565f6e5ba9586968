import { Transform } from 'class-transformer';
import { IsOptional, IsString, Matches, MinLength } from 'class-validator';
import { trimmedOrUndefined } from './variables';

/** The variables of the master key. */
export class AuthVariables {
  /** Sent as a Bearer token: taken trimmed (a secret file's newline); what a header cannot carry is refused at start. */
  @Transform(trimmedOrUndefined)
  @IsOptional()
  @IsString()
  @MinLength(24, { message: 'must be at least 24 characters' })
  @Matches(/^[\x21-\x7e]*$/, { message: 'must be printable ASCII without spaces (it is sent as a Bearer token)' })
  ADMIN_MASTER_KEY?: string;
}
