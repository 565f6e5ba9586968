import { AUDIT_ACTIONS } from '../../../audit/audit-actions';
import { query } from '../api';
import type { View } from '../context';
import { append, field, h, identifier, replaceChildren, row, select, table, urlText, when, type Child } from '../dom';
import { findForm } from './find-form';
import type { AuditEvent } from '../types';
import { Pager } from './pager';

const PAGE_SIZE = 25;

/** A datetime-local field's value as the API takes it (the page shows times in UTC), and back. */
const toInstant = (local: string) => (local ? `${local.length === 16 ? `${local}:00` : local}Z` : '');
const toLocal = (instant: string | null) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?/.exec(instant ?? '')?.[0] ?? '';

/** The audit trail of admin writes, newest first (admins only), found by actor, action, target and time (kept in the URL). */
export const auditView: View = async (context) => {
  const given = (name: string) => context.query.get(name) ?? '';
  const actor = h('input', { attrs: { type: 'text', name: 'actor', maxlength: 200, value: given('actor') } });
  const actions = [...AUDIT_ACTIONS, ...(given('action') && !(AUDIT_ACTIONS as readonly string[]).includes(given('action')) ? [given('action')] : [])];
  const action = select('action', [['', 'any action'], ...actions.map((name): [string, string] => [name, name])], given('action'));
  const target = h('input', { attrs: { type: 'text', name: 'target', maxlength: 200, value: given('target') } });
  const time = (name: string) => h('input', { attrs: { type: 'datetime-local', name, step: 1, value: toLocal(given(name)) } });
  const [from, to] = [time('from'), time('to')];
  const list = h('div', { class: 'list' });

  // The filters as of the last Find: paging goes on with them, whatever is typed since.
  const typed = () => ({ actor: actor.value.trim(), action: action.value, target: target.value.trim(), from: toInstant(from.value), to: toInstant(to.value) });
  let filters = typed();
  const pager = new Pager(async (cursor) => {
    const page = await context.api<{ events: AuditEvent[]; next_cursor: string | null }>('GET', `/admin/audit${query({ ...filters, limit: PAGE_SIZE, cursor })}`);
    const rows = page.events.map((event) => row(when(event.at), event.actor, event.action, identifier(event.target), detailRows(event.details)));
    replaceChildren(list, table(['At', 'Who', 'Action', 'Target', 'Details'], rows, 'Nothing recorded matches.'));
    return page.next_cursor;
  }, context);

  const find = findForm(
    context,
    'Find in the audit trail',
    [
      field('Who', actor, 'An account’s name; master for the master key'),
      field('Action', action),
      field('Target', target, 'As the trail shows it: market:12, partner:acme'),
      field('From (UTC)', from),
      field('To (UTC)', to, 'Up to, not including'),
    ],
    async () => {
      filters = typed();
      await pager.first();
      context.keep(filters);
    },
  );
  context.keep(filters);
  await pager.first();
  context.show(h('h1', null, 'Audit trail'), h('p', { class: 'lead' }, 'Every admin write, newest first.'), find, list, pager.element);
};

/** What a write changed, a row per detail: `market_id` → “market id: 2”. */
function detailRows(details: Record<string, unknown>): Child {
  const entries = Object.entries(details);
  if (entries.length === 0) return '—';
  const list = h('dl', { class: 'kv' });
  for (const [name, value] of entries) {
    const text = value === null ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    append(list, h('dt', null, name.replaceAll('_', ' ')), h('dd', null, ...(/^https?:\/\//.test(text) ? urlText(text) : [text])));
  }
  return list;
}
