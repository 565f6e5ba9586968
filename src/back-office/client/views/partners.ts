import { query } from '../api';
import type { Context, View } from '../context';
import { badge, field, h, identifier, replaceChildren, row, table, when, whenSubmitted, writeButton } from '../dom';
import type { Partner } from '../types';
import { keysPath, revokeKeyButton } from './partner-keys';
import { Pager } from './pager';
import { newKeyPanel, showOnce } from './secret';

const PAGE_SIZE = 50;

/** Partners and their API keys (admins only): find and register partners, issue and revoke keys. */
export const partnersView: View = async (context) => {
  const search = h('input', { attrs: { type: 'search', name: 'q', maxlength: 200 } });
  const list = h('div', { class: 'list' });
  const issued = h('div');
  const showKey = (title: string, key: string, partner: string) => showOnce(issued, newKeyPanel(title, key, `the partner ${partner}`));
  // The search as of the last Find: paging goes on with it, whatever is typed since.
  let q = '';
  const pager = new Pager(async (cursor) => {
    const page = await context.api<{ partners: Partner[]; next_cursor: string | null }>('GET', `/admin/partners${query({ q, limit: PAGE_SIZE, cursor })}`);
    const issueButton = (partner: Partner) =>
      writeButton('Issue a key', context.fail, async () => {
        const key = await context.api<{ key_id: number; api_key: string }>('POST', `/admin/partners/${encodeURIComponent(partner.source)}/keys`);
        await pager.reload();
        showKey(`New key of ${partner.source}`, key.api_key, partner.source);
        context.done(`Key ${key.key_id} issued for ${partner.source}.`);
      }, `Issue a key for ${partner.source}`);
    // The button under the partner's keys, not in a column of its own: the table fits a laptop.
    const rows = page.partners.map((partner) =>
      row(identifier(partner.source), partner.name, when(partner.created_at), h('div', null, keyList(context, partner, () => pager.reload()), issueButton(partner))),
    );
    replaceChildren(list, table(['Source', 'Name', 'Registered', 'Keys'], rows, q ? 'No partner matches.' : 'No partners yet.'));
    return page.next_cursor;
  }, context.fail);

  const find = h(
    'form',
    { class: 'panel filters', attrs: { role: 'search', 'aria-label': 'Find partners' } },
    field('Search', search, 'Any part of the source or the name, in any letter case'),
    h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Find'),
  );
  whenSubmitted(find, context.fail, async () => {
    q = search.value.trim();
    await pager.first();
    context.done('');
  });
  await pager.first();
  context.show(h('h1', null, 'Partners and keys'), find, list, pager.element, issued, createForm(context, showKey, () => pager.reload()));
};

/** A partner's newest keys, and a link to its page: all its keys, and its webhooks. */
function keyList(context: Context, partner: Partner, reload: () => Promise<void>): HTMLElement {
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
        key.revoked_at ? null : revokeKeyButton(context, partner.source, key, reload),
      ),
    ),
    h('li', null, h('a', { attrs: { href: keysPath(partner.source) } }, `All keys and webhooks of ${partner.source}`)),
  );
}

function createForm(context: Context, showKey: (title: string, key: string, partner: string) => void, reload: () => Promise<void>): HTMLElement {
  const source = h('input', { attrs: { type: 'text', name: 'source', required: true, maxlength: 64 } });
  const name = h('input', { attrs: { type: 'text', name: 'name', required: true, maxlength: 200 } });
  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Register a partner' } },
    h('h2', null, 'Register a partner'),
    field('Source', source, 'Letters, digits, “.”, “_” and “-”; it appears in URLs and is shared with the partner'),
    field('Name', name),
    h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Register partner'),
  );
  return whenSubmitted(form, context.fail, async () => {
    const created = await context.api<{ source: string; api_key: string }>('POST', '/admin/partners', { source: source.value, name: name.value });
    form.reset();
    await reload();
    showKey(`First key of ${created.source}`, created.api_key, created.source);
    context.done(`Partner ${created.source} registered.`);
  });
}
