import { query } from '../api';
import type { View } from '../context';
import { h, identifier, replaceChildren, row, table, when } from '../dom';
import type { AdminDispute, DisputeCounts, DisputeStatus } from '../types';
import { Pager } from './pager';

const PAGE_SIZE = 20;

/** The dispute queue: open disputes oldest first (or the closed ones), with the counts of both. */
export const queueView: View = async (context, [status = 'open']) => {
  const counts = await context.api<DisputeCounts>('GET', '/admin/disputes/counts');
  const list = h('div', { class: 'list' });
  const pager = new Pager(async (cursor) => {
    const page = await context.api<{ disputes: AdminDispute[]; next_cursor: string | null }>(
      'GET',
      `/admin/disputes${query({ status, limit: PAGE_SIZE, cursor })}`,
    );
    const headings = ['Dispute', 'Market', 'Source', 'Submitted', 'Submitter says', 'Submitter'];
    if (status === 'closed') headings.push('Decision');
    const rows = page.disputes.map((dispute) =>
      row(
        h('a', { attrs: { href: `#/disputes/${dispute.id}` } }, `#${dispute.id}`),
        h('span', { class: 'slug' }, dispute.slug),
        identifier(dispute.source),
        when(dispute.submitted_at),
        dispute.submitter_selection,
        dispute.submitter_name,
        // The open queue has no Decision column, hence no cell for it.
        ...(status === 'closed' ? [dispute.decision ? `${dispute.decision.type} → ${dispute.decision.partner_final_verdict}` : '—'] : []),
      ),
    );
    replaceChildren(list, table(headings, rows, status === 'open' ? 'No open disputes: the queue is empty.' : 'No closed disputes yet.'));
    return page.next_cursor;
  }, context);
  await pager.first();

  const tab = (name: DisputeStatus, label: string) =>
    h('a', { attrs: { href: `#/queue/${name}`, 'aria-current': status === name ? 'page' : undefined } }, `${label} (${counts[name]})`);
  context.show(
    h('h1', null, 'Dispute queue'),
    // In the order they were filed: "Submitted" is the time the partner gives, which may differ.
    h('p', { class: 'lead' }, status === 'open' ? 'Open disputes, in the order they were filed: start at the top.' : 'Decided disputes, in the order they were filed.'),
    h('nav', { class: 'tabs', attrs: { 'aria-label': 'Dispute status' } }, tab('open', 'Open'), tab('closed', 'Closed')),
    list,
    pager.element,
  );
};
