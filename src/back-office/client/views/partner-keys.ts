import { query } from '../api';
import type { Context, View } from '../context';
import { badge, button, h, replaceChildren, row, table, when, writeButton, type Child } from '../dom';
import type { Near, Notices } from '../notice-board';
import type { KeyView, PartnerKey } from '../types';
import { confirmAction } from './confirm';
import { Pager } from './pager';
import { newKeyPanel, showOnce } from './secret';
import { webhooksSection } from './webhooks';

const PAGE_SIZE = 50;

/** The path of a partner's page: its keys and its webhooks. */
export const keysPath = (source: string) => `#/partners/${encodeURIComponent(source)}/keys`;

/** Every key of one partner (admins only), newest first, a page at a time (Partners lists 20), a key issued, and its webhooks. */
export const partnerKeysView: View = async (context, [source]) => {
  const list = h('div', { class: 'list' });
  const issued = h('div');
  const pager = new Pager(async (cursor) => {
    const page = await context.api<{ keys: KeyView[]; next_cursor: string | null }>(
      'GET',
      `/admin/partners/${encodeURIComponent(source)}/keys${query({ limit: PAGE_SIZE, cursor })}`,
    );
    const rows = page.keys.map((key) => {
      const place = () => document.querySelector(`tr[data-key="${key.key_id}"] td:last-child`);
      const item = row(
        h('code', null, `${key.prefix}…`),
        keyStatus(key),
        when(key.created_at),
        when(key.last_used_at),
        key.revoked_at ? '—' : revokeKeyButton(context, source, key, () => pager.reload(), place),
      );
      item.dataset.key = String(key.key_id);
      return item;
    });
    replaceChildren(list, table(['Key', 'Status', 'Created', 'Last used', 'Action'], rows, 'No keys.'));
    return page.next_cursor;
  }, context);
  const [, webhooks] = await Promise.all([pager.first(), webhooksSection(context, source)]);
  context.show(
    h('h1', null, `Keys and webhooks of ${source}`),
    h('p', { class: 'lead' }, h('a', { attrs: { href: '#/partners' } }, 'Back to partners and keys')),
    h('h2', null, 'API keys'),
    h('p', { class: 'lead' }, 'Newest first.'),
    list,
    pager.element,
    h('p', null, issueKeyButton(context, source, issued, () => pager.first())),
    issued,
    webhooks,
  );
};

/** Active, or revoked and since when. */
function keyStatus(key: KeyView): Child {
  return key.revoked_at ? h('span', null, badge('revoked'), ' ', when(key.revoked_at)) : badge('active');
}

/** A key just issued (or a partner's first), shown once in `container`; its notices go beside it. */
export function showKey(context: Context, container: HTMLElement, title: string, key: string, partner: string): Notices {
  return showOnce(context, container, newKeyPanel(title, key, `the partner ${partner}`));
}

/** Issues a key for `source`, shown once in `container` (a double click issues one), then `reload`s what lists keys. */
export function issueKeyButton(context: Context, source: string, container: HTMLElement, reload: () => Promise<void>): HTMLButtonElement {
  const issue = writeButton(
    'Issue a key',
    (error) => context.at(issue).fail(error),
    async () => {
      const key = await context.api<{ key_id: number; api_key: string }>('POST', `/admin/partners/${encodeURIComponent(source)}/keys`);
      await reload();
      showKey(context, container, `New key of ${source}`, key.api_key, source).done(`Key ${key.key_id} issued for ${source}.`);
    },
    `Issue a key for ${source}`,
  );
  return issue;
}

/** Revokes `key` of partner `source` once confirmed, then `reload`s what shows it; its notices go after `near`. */
export function revokeKeyButton(context: Context, source: string, key: PartnerKey, reload: () => Promise<void>, near: Near): HTMLButtonElement {
  return button(
    'Revoke',
    () => {
      const notices = context.at(near);
      confirmAction(`Revoke key ${key.prefix}… of ${source}?`, ['Requests with this key fail at once, on every instance.'], 'Revoke key')
        .then(async (confirmed) => {
          if (!confirmed) return;
          await context.api('DELETE', `/admin/partners/${encodeURIComponent(source)}/keys/${key.key_id}`);
          await reload();
          notices.done(`Key ${key.prefix}… of ${source} is revoked.`);
        })
        .catch(notices.fail);
    },
    `Revoke ${key.prefix}…`,
  );
}
