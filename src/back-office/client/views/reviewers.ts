import { ApiFailure } from '../api';
import type { Context, View } from '../context';
import { PageMessage } from '../notices';
import { badge, button, field, h, replaceChildren, row, select, table, when, whenSubmitted } from '../dom';
import { confirmAction } from './confirm';
import { newKeyPanel } from './secret';

interface Reviewer {
  id: number;
  name: string;
  role: string;
  created_at: string;
  revoked_at: string | null;
}

/** Reviewer accounts (admins only): list, create (the key shown once), revoke. */
export const reviewersView: View = async (context) => {
  const list = h('div', { class: 'list' });
  const issued = h('div');
  const load = async () => {
    const { reviewers } = await context.api<{ reviewers: Reviewer[] }>('GET', '/admin/reviewers');
    const rows = reviewers.map((reviewer) =>
      row(
        reviewer.name,
        reviewer.role,
        when(reviewer.created_at),
        reviewer.revoked_at ? badge('revoked') : badge('active'),
        reviewer.revoked_at ? when(reviewer.revoked_at) : button('Revoke', () => revoke(context, reviewer, load), `Revoke ${reviewer.name}`),
      ),
    );
    replaceChildren(list, table(['Name', 'Role', 'Created', 'Key', 'Revoked'], rows, 'No reviewer accounts yet.'));
  };
  await load();
  context.show(h('h1', null, 'Reviewers'), list, issued, createForm(context, issued, load));
};

function revoke(context: Context, reviewer: Reviewer, reload: () => Promise<void>): void {
  confirmAction(`Revoke ${reviewer.name}?`, [`${reviewer.name}'s key stops working at once, on every instance.`], 'Revoke')
    .then(async (confirmed) => {
      if (!confirmed) return;
      await context.api('DELETE', `/admin/reviewers/${reviewer.id}`).catch((error: unknown) => {
        // Here, where only admins come, 4031 is the one refusal left: the account is the caller's own.
        if (error instanceof ApiFailure && error.code === 4031) throw new PageMessage('You cannot revoke your own account: another admin, or the master key, can.');
        throw error;
      });
      await reload();
      context.done(`${reviewer.name} is revoked.`);
    })
    .catch(context.fail);
}

function createForm(context: Context, issued: HTMLElement, reload: () => Promise<void>): HTMLElement {
  const name = h('input', { attrs: { type: 'text', name: 'name', required: true, maxlength: 200 } });
  const role = select('role', [['reviewer', 'reviewer: reads and decides disputes'], ['admin', 'admin: everything']], 'reviewer');
  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Create a reviewer' } },
    h('h2', null, 'Create a reviewer'),
    field('Name', name),
    field('Role', role),
    h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Create reviewer'),
  );
  return whenSubmitted(form, context.fail, async () => {
    const created = await context.api<{ name: string; api_key: string }>('POST', '/admin/reviewers', { name: name.value, role: role.value });
    form.reset();
    replaceChildren(issued, newKeyPanel(`Key of ${created.name}`, created.api_key, created.name));
    await reload();
    context.done(`${created.name} can now sign in with the key below.`);
  });
}
