import type { Context } from '../context';
import { h, whenSubmitted } from '../dom';

/** A search: its fields side by side, then Find; `find` runs once at a time, a failure is said beside Find, a success silences the notices. */
export function findForm(context: Context, label: string, fields: HTMLElement[], find: () => Promise<void>): HTMLFormElement {
  const button = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Find');
  const form = h('form', { class: 'panel filters', attrs: { role: 'search', 'aria-label': label } }, ...fields, button);
  return whenSubmitted(form, context.at(button).fail, async () => {
    await find();
    context.clear();
  });
}
