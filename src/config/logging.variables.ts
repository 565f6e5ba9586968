import { IsIn } from 'class-validator';

/** The variables of the log lines. */
export class LoggingVariables {
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** json: one JSON object a line; pretty: for a person; auto: pretty in the zero-setup mode on a terminal, else json. */
  @IsIn(['auto', 'json', 'pretty'])
  LOG_FORMAT = 'auto';
}
