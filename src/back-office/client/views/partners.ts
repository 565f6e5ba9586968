import { query } from '../api';
import type { Context, View } from '../context';
import { badge, field, h, identifier, replaceChildren, row, table, when, whenSubmitted } from '../dom';
import type { Partner } from '../types';
import { issueKeyButton, keysPath, revokeKeyButton, showKey } from './partner-keys';
import { findForm } from './find-form';
import { Pager } from './pager';

const PAGE_SIZE = 50;

/** Partners and their API keys (admins only): find and register partners, issue and revoke keys. */
export const partnersView: View = async (context) => {
  const search = h('input', { attrs: { type: 'search', name: 'q', maxlength: 200 } });
  const list = h('div', { class: 'list' });
  const issued = h('div');
  // The search as of the last Find: paging goes on with it, whatever is typed since.
  let q = '';
  const pager = new Pager(async (cursor) => {
    const page = await context.api<{ partners: Partner[]; next_cursor: string | null }>('GET', `/admin/partners${query({ q, limit: PAGE_SIZE, cursor })}`);
    // The button under the partner's keys, not in a column of its own: the table fits a laptop.
    const rows = page.partners.map((partner) => {
      const keys = h('div', { class: 'partner-keys' }, keyList(context, partner, () => pager.reload()), issueKeyButton(context, partner.source, issued, () => pager.reload()));
      const item = row(identifier(partner.source), partner.name, when(partner.created_at), keys);
      item.dataset.partner = partner.source;
      return item;
    });
    replaceChildren(list, table(['Source', 'Name', 'Registered', 'Keys'], rows, q ? 'No partner matches.' : 'No partners yet.'));
    return page.next_cursor;
  }, context);

  const find = findForm(context, 'Find partners', [field('Search', search, 'Any part of the source or the name, in any letter case')], async () => {
    q = search.value.trim();
    await pager.first();
  });
  await pager.first();
  context.show(h('h1', null, 'Partners and keys'), find, list, pager.element, issued, createForm(context, issued, () => pager.reload()));
};

/** A partner's newest keys, and a link to its page: all its keys, and its webhooks. */
function keyList(context: Context, partner: Partner, reload: () => Promise<void>): HTMLElement {
  // Its row is drawn again after a revocation: the notice goes to the new one.
  const place = () => document.querySelector(`tr[data-partner="${CSS.escape(partner.source)}"] .partner-keys`);
  return h(
    'ul',
    { class: 'plain keys' },
    ...partner.keys.map((key) =>
      h(
        'li',
        null,
        h('code', null, `${key.prefix}…`),
        ' ',
        key.revoked_at ? badge('revoked') : badge('active'),
        ' ',
        h('span', null, 'created ', when(key.created_at)),
        ' ',
        key.revoked_at ? null : revokeKeyButton(context, partner.source, key, reload, place),
      ),
    ),
    h('li', null, h('a', { attrs: { href: keysPath(partner.source) } }, `All keys and webhooks of ${partner.source}`)),
  );
}

function createForm(context: Context, issued: HTMLElement, reload: () => Promise<void>): HTMLElement {
  const source = h('input', { attrs: { type: 'text', name: 'source', required: true, maxlength: 64 } });
  const name = h('input', { attrs: { type: 'text', name: 'name', required: true, maxlength: 200 } });
  const submit = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Register partner');
  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Register a partner' } },
    h('h2', null, 'Register a partner'),
    field('Source', source, 'Letters, digits, “.”, “_” and “-”; it appears in URLs and is shared with the partner'),
    field('Name', name),
    submit,
  );
  return whenSubmitted(form, context.at(submit).fail, async () => {
    const created = await context.api<{ source: string; api_key: string }>('POST', '/admin/partners', { source: source.value, name: name.value });
    form.reset();
    await reload();
    showKey(context, issued, `First key of ${created.source}`, created.api_key, created.source).done(`Partner ${created.source} registered.`);
  });
}
