import { MARKET_STATUSES } from '../../../markets/market-state';
import { query } from '../api';
import type { Context, View } from '../context';
import { badge, field, h, identifier, replaceChildren, row, select, table, when, whenSubmitted } from '../dom';
import type { MarketItem } from '../types';
import { marketRecord } from './market-record';
import { Pager } from './pager';
import { resolveForm } from './resolve-form';

const PAGE_SIZE = 20;
const STATUSES: [string, string][] = [['', 'any status'], ...MARKET_STATUSES.map((value): [string, string] => [value, value])];

/** Markets: find by source, status and part of the slug; admins also create and resolve. */
export const marketsView: View = async (context) => {
  const source = h('input', { attrs: { type: 'text', name: 'source', maxlength: 64 } });
  const status = select('status', STATUSES);
  const slug = h('input', { attrs: { type: 'search', name: 'q', maxlength: 256 } });
  const list = h('div', { class: 'list' });
  const selected = h('div', { class: 'selected-market' });

  const open = (market: MarketItem) => {
    replaceChildren(
      selected,
      marketRecord(market, `Market #${market.id}`),
      context.account.role === 'admin' && market.status === 'monitoring' ? resolveForm(context, market, (resolved) => void refresh(resolved)) : null,
    );
    selected.querySelector('h2')?.setAttribute('tabindex', '-1');
    selected.querySelector<HTMLElement>('h2')?.focus();
  };
  // The filters as of the last Find: paging goes on with them, whatever is typed since.
  const typed = () => ({ source: source.value.trim(), status: status.value, q: slug.value.trim() });
  let filters = typed();
  const pager = new Pager(async (cursor) => {
    const page = await context.api<{ markets: MarketItem[]; next_cursor: string | null }>(
      'GET',
      `/admin/markets${query({ ...filters, limit: PAGE_SIZE, cursor })}`,
    );
    const rows = page.markets.map((market) =>
      row(
        h('button', { class: 'link', attrs: { type: 'button' }, on: { click: () => open(market) } }, `#${market.id}`),
        h('span', { class: 'slug' }, market.slug),
        identifier(market.source),
        badge(market.status),
        market.verdict ?? '—',
        when(market.resolved_at),
      ),
    );
    replaceChildren(list, table(['Market', 'Slug', 'Source', 'Status', 'Verdict', 'Resolved at'], rows, 'No market matches.'));
    return page.next_cursor;
  }, context.fail);
  /** After a write: the list from its first page, and the market written shown below it. */
  const refresh = async (market: MarketItem) => {
    await pager.first().catch(context.fail);
    open(market);
  };

  const find = h(
    'form',
    { class: 'panel filters', attrs: { role: 'search', 'aria-label': 'Find markets' } },
    field('Source', source),
    field('Status', status),
    field('Slug contains', slug, 'Any part of the slug, in any letter case'),
    h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Find'),
  );
  whenSubmitted(find, context.fail, async () => {
    replaceChildren(selected);
    filters = typed();
    await pager.first();
    context.done('');
  });
  await pager.first();
  context.show(
    h('h1', null, 'Markets'),
    find,
    list,
    pager.element,
    selected,
    context.account.role === 'admin' ? createForm(context, refresh) : null,
  );
};

function createForm(context: Context, created: (market: MarketItem) => Promise<void>): HTMLElement {
  const source = h('input', { attrs: { type: 'text', name: 'source', required: true, maxlength: 64 } });
  const slug = h('input', { attrs: { type: 'text', name: 'slug', required: true, maxlength: 256 } });
  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Create a market' } },
    h('h2', null, 'Create a market'),
    field('Partner source', source),
    field('Slug', slug, 'Unique within the source; spaces and “/” at either end are dropped'),
    h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Create market'),
  );
  return whenSubmitted(form, context.fail, async () => {
    const market = await context.api<MarketItem>('POST', '/admin/markets', { source: source.value, slug: slug.value });
    form.reset();
    await created(market);
    context.done(`Market #${market.id} created; it is monitoring until it is resolved.`);
  });
}
