import { accountOf } from '../session';
import { failureLines } from '../notices';
import { field, h, replaceChildren } from '../dom';
import type { Account } from '../types';

/** The sign-in form: a reviewer's or admin's key, checked against the API before it is kept. */
export function signInView(root: HTMLElement, message: string | null, signedIn: (key: string, account: Account) => void): void {
  const key = h('input', { attrs: { type: 'password', name: 'key', required: true, autocomplete: 'off', spellcheck: 'false' } });
  const alertRegion = h('div', { class: 'notice notice-alert', attrs: { role: 'alert' } });
  const submit = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Sign in');
  const form = h(
    'form',
    {
      class: 'sign-in',
      on: {
        submit: (event) => {
          event.preventDefault();
          submit.disabled = true;
          const typed = key.value.trim();
          accountOf(typed)
            .then((account) => signedIn(typed, account))
            .catch((error: unknown) => {
              replaceChildren(alertRegion, ...failureLines(error));
              submit.disabled = false;
              key.select();
            });
        },
      },
    },
    h('h1', null, 'Back office'),
    h('p', null, 'Sign in with your reviewer or admin key. It is kept in this tab only, until you sign out or close the tab.'),
    field('Key', key),
    submit,
  );
  replaceChildren(root, h('main', { class: 'sign-in-page' }, message ? h('p', { class: 'notice notice-status', attrs: { role: 'status' } }, message) : null, alertRegion, form));
  key.focus();
}
