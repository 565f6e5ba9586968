import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

// Transforms and checks the variables' schemas share (the *.variables.ts files).
export const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;

/** A whole number from `min` (to `max`), given as text; applied in the order stacked decorators are, so refusals read as before. */
export const IntVariable = (min: number, max?: number) =>
  applyDecorators(...(max === undefined ? [] : [Max(max)]), Min(min), IsInt(), Transform(toInt));

export const toBoolean = ({ value }: { value: unknown }) =>
  typeof value === 'string' && ['true', 'false'].includes(value.trim()) ? value.trim() === 'true' : value;
export const emptyToUndefined = ({ value }: { value: unknown }) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
export const trimmedOrUndefined = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.trim() || undefined : value;

/** The items of a comma-separated setting, trimmed, empty ones dropped. */
export const itemsOf = (list: string | undefined): string[] =>
  (list ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');

/** An origin as a browser's Origin header carries it (scheme, host, port only): the only form CORS can match. */
export const isOrigin = (text: string) => URL.canParse(text) && new URL(text).origin === text;
