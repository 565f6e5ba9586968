import { ApiError, ErrorCatalogue } from './error-catalogue';

/** How many offending fields or parameters a 4000 names; the others are counted. */
const LISTED_PROBLEMS = 10;

/** How much of a name the client chose a 4000 repeats. */
const SHOWN_NAME_LENGTH = 64;

/** A name the client chose (an unknown field or parameter), cut to SHOWN_NAME_LENGTH characters; `""` when empty. */
export function shown(name: string): string {
  if (name === '') return '""';
  return name.length > SHOWN_NAME_LENGTH ? `${name.slice(0, SHOWN_NAME_LENGTH)}…` : name;
}

/** The problems of one input, for one 4000: the first LISTED_PROBLEMS worded, the rest counted, so `detail` stays short. */
export class Problems {
  private readonly listed: string[] = [];
  private unlisted = 0;

  add(problem: string): void {
    if (this.listed.length < LISTED_PROBLEMS) this.listed.push(problem);
    else this.unlisted++;
  }

  get found(): boolean {
    return this.listed.length > 0;
  }

  error(): ApiError {
    const more = this.unlisted > 0 ? `; and ${this.unlisted} more` : '';
    return new ApiError(ErrorCatalogue.INVALID_REQUEST, `${this.listed.join('; ')}${more}`);
  }
}
