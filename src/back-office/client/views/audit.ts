import { query } from '../api';
import type { View } from '../context';
import { h, identifier, replaceChildren, row, table, when } from '../dom';
import type { AuditEvent } from '../types';
import { Pager } from './pager';

const PAGE_SIZE = 25;

/** The audit trail of admin writes, newest first (admins only). */
export const auditView: View = async (context) => {
  const list = h('div', { class: 'list' });
  const pager = new Pager(async (cursor) => {
    const page = await context.api<{ events: AuditEvent[]; next_cursor: string | null }>('GET', `/admin/audit${query({ limit: PAGE_SIZE, cursor })}`);
    const rows = page.events.map((event) =>
      row(when(event.at), event.actor, event.action, identifier(event.target), h('code', { class: 'details' }, JSON.stringify(event.details))),
    );
    replaceChildren(list, table(['At', 'Who', 'Action', 'Target', 'Details'], rows, 'Nothing recorded yet.'));
    return page.next_cursor;
  }, context.fail);
  await pager.first();
  context.show(h('h1', null, 'Audit trail'), h('p', { class: 'lead' }, 'Every admin write, newest first.'), list, pager.element);
};
