import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { StorableText, TEXT_PATTERN, TextLength, textMessage, ToSafeId, Trim } from '../common/validation';

/** The longest webhook URL accepted. */
const WEBHOOK_URL_MAX_LENGTH = 2048;
const DESCRIPTION_MAX_LENGTH = 200;
const AFTER_MESSAGE = `$property must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`;

export class CreateWebhookDto {
  /**
   * Where the events are POSTed: an `https://` URL whose host resolves to public addresses only
   * (checked now and again at every connection); no user name or password in it.
   * @example "https://hooks.acme.example/oracle"
   */
  @ApiProperty({ type: 'string', minLength: 1, maxLength: WEBHOOK_URL_MAX_LENGTH, format: 'uri' })
  @IsDefined()
  @Trim()
  @IsString({ message: textMessage(WEBHOOK_URL_MAX_LENGTH) })
  @TextLength(1, WEBHOOK_URL_MAX_LENGTH, { message: textMessage(WEBHOOK_URL_MAX_LENGTH) })
  url: string;

  /**
   * A note for the people who read the list; null or omitted: none.
   * @example "Settlement updates for the trading desk"
   */
  @ApiProperty({ type: 'string', minLength: 1, maxLength: DESCRIPTION_MAX_LENGTH, pattern: TEXT_PATTERN, required: false, nullable: true })
  @IsOptional()
  @Trim()
  @IsString({ message: textMessage(DESCRIPTION_MAX_LENGTH) })
  @TextLength(1, DESCRIPTION_MAX_LENGTH, { message: textMessage(DESCRIPTION_MAX_LENGTH) })
  @StorableText()
  description?: string | null;
}

export class RedeliverDto {
  /**
   * Every event of the partner's source with a greater sequence is queued again to this webhook,
   * oldest first (0: every event kept); a JSON integer or a string of digits.
   * @example 1040
   */
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER })
  @IsDefined({ message: AFTER_MESSAGE })
  @ToSafeId()
  @IsInt({ message: AFTER_MESSAGE })
  @Min(0, { message: AFTER_MESSAGE })
  @Max(Number.MAX_SAFE_INTEGER, { message: AFTER_MESSAGE })
  after: number;
}
