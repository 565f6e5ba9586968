import { query } from '../api';
import type { Context, View } from '../context';
import { badge, button, field, h, replaceChildren, row, select, table, when, whenSubmitted, type Child } from '../dom';
import type { Reviewer } from '../types';
import { confirmAction } from './confirm';
import { Pager } from './pager';
import { newKeyPanel, showOnce } from './secret';

const PAGE_SIZE = 50;

/** Reviewer accounts (admins only), oldest first: list, create (the key shown once), revoke. */
export const reviewersView: View = async (context) => {
  const list = h('div', { class: 'list' });
  const issued = h('div');
  const pager = new Pager(async (cursor) => {
    const page = await context.api<{ reviewers: Reviewer[]; next_cursor: string | null }>('GET', `/admin/reviewers${query({ limit: PAGE_SIZE, cursor })}`);
    const rows = page.reviewers.map((reviewer) => {
      const item = row(
        reviewer.name,
        reviewer.role,
        when(reviewer.created_at),
        reviewer.revoked_at ? h('span', null, badge('revoked'), ' ', when(reviewer.revoked_at)) : badge('active'),
        revokeOrNot(context, reviewer, () => pager.reload()),
      );
      item.dataset.reviewer = String(reviewer.id);
      return item;
    });
    replaceChildren(list, table(['Name', 'Role', 'Created', 'Key', 'Action'], rows, 'No reviewer accounts yet.'));
    return page.next_cursor;
  }, context);
  await pager.first();
  context.show(h('h1', null, 'Reviewers'), list, pager.element, issued, createForm(context, issued, () => pager.reload()));
};

/** A button to revoke the account; none for a revoked one, nor for one's own (the API refuses: 4031). */
function revokeOrNot(context: Context, reviewer: Reviewer, reload: () => Promise<void>): Child {
  if (reviewer.revoked_at) return '—';
  if (reviewer.id === context.account.id) return h('span', { class: 'hint' }, 'Your account (another admin can revoke it)');
  return button('Revoke', () => revoke(context, reviewer, reload), `Revoke ${reviewer.name}`);
}

function revoke(context: Context, reviewer: Reviewer, reload: () => Promise<void>): void {
  // Its row is drawn again: the notice goes to the new one.
  const notices = context.at(() => document.querySelector(`tr[data-reviewer="${reviewer.id}"] td:last-child`));
  confirmAction(`Revoke ${reviewer.name}?`, [`${reviewer.name}'s key stops working at once, on every instance.`], 'Revoke')
    .then(async (confirmed) => {
      if (!confirmed) return;
      await context.api('DELETE', `/admin/reviewers/${reviewer.id}`);
      await reload();
      notices.done(`${reviewer.name} is revoked.`);
    })
    .catch(notices.fail);
}

function createForm(context: Context, issued: HTMLElement, reload: () => Promise<void>): HTMLElement {
  const name = h('input', { attrs: { type: 'text', name: 'name', required: true, maxlength: 200 } });
  const role = select('role', [['reviewer', 'reviewer'], ['admin', 'admin']], 'reviewer');
  const submit = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Create reviewer');
  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Create a reviewer' } },
    h('h2', null, 'Create a reviewer'),
    field('Name', name),
    field('Role', role, 'A reviewer reads and decides disputes; an admin does everything'),
    submit,
  );
  return whenSubmitted(form, context.at(submit).fail, async () => {
    const created = await context.api<{ name: string; api_key: string }>('POST', '/admin/reviewers', { name: name.value, role: role.value });
    form.reset();
    await reload();
    showOnce(context, issued, newKeyPanel(`Key of ${created.name}`, created.api_key, created.name)).done(`${created.name} can now sign in with the key below.`);
  });
}
