import { query } from '../api';
import type { Context, View } from '../context';
import { badge, button, h, replaceChildren, row, table, when } from '../dom';
import type { KeyView, PartnerKey } from '../types';
import { confirmAction } from './confirm';
import { Pager } from './pager';
import { webhooksSection } from './webhooks';

const PAGE_SIZE = 50;

/** The path of a partner's page: its keys and its webhooks. */
export const keysPath = (source: string) => `#/partners/${encodeURIComponent(source)}/keys`;

/** Every key of one partner (admins only), newest first, a page at a time (Partners lists 20), and its webhooks. */
export const partnerKeysView: View = async (context, [source]) => {
  const list = h('div', { class: 'list' });
  const pager = new Pager(async (cursor) => {
    const page = await context.api<{ keys: KeyView[]; next_cursor: string | null }>(
      'GET',
      `/admin/partners/${encodeURIComponent(source)}/keys${query({ limit: PAGE_SIZE, cursor })}`,
    );
    const rows = page.keys.map((key) =>
      row(
        h('code', null, `${key.prefix}…`),
        key.revoked_at ? badge('revoked') : badge('active'),
        when(key.created_at),
        when(key.last_used_at),
        key.revoked_at ? when(key.revoked_at) : revokeKeyButton(context, source, key, () => pager.reload()),
      ),
    );
    replaceChildren(list, table(['Key', 'Status', 'Created', 'Last used', 'Revoked'], rows, 'No keys.'));
    return page.next_cursor;
  }, context.fail);
  const [, webhooks] = await Promise.all([pager.first(), webhooksSection(context, source)]);
  context.show(
    h('h1', null, `Keys and webhooks of ${source}`),
    h('p', { class: 'lead' }, h('a', { attrs: { href: '#/partners' } }, 'Back to partners and keys')),
    h('h2', null, 'API keys'),
    h('p', { class: 'lead' }, 'Newest first.'),
    list,
    pager.element,
    webhooks,
  );
};

/** Revokes `key` of partner `source` once confirmed, then `reload`s what shows it. */
export function revokeKeyButton(context: Context, source: string, key: PartnerKey, reload: () => Promise<void>): HTMLButtonElement {
  return button(
    'Revoke',
    () => {
      confirmAction(`Revoke key ${key.prefix}… of ${source}?`, ['Requests with this key fail at once, on every instance.'], 'Revoke key')
        .then(async (confirmed) => {
          if (!confirmed) return;
          await context.api('DELETE', `/admin/partners/${encodeURIComponent(source)}/keys/${key.key_id}`);
          await reload();
          context.done(`Key ${key.prefix}… of ${source} is revoked.`);
        })
        .catch(context.fail);
    },
    `Revoke ${key.prefix}…`,
  );
}
