import { MARKET_STATUSES } from '../../../markets/market-state';
import { query } from '../api';
import type { Context, View } from '../context';
import { badge, field, h, identifier, replaceChildren, row, select, table, when, whenSubmitted } from '../dom';
import type { MarketItem } from '../types';
import { findForm } from './find-form';
import { Pager } from './pager';

const PAGE_SIZE = 20;
const STATUSES: [string, string][] = [['', 'any status'], ...MARKET_STATUSES.map((value): [string, string] => [value, value])];

/** A market's own page (views/market.ts), by its source and slug. */
export const marketPath = (market: Pick<MarketItem, 'source' | 'slug'>) => `#/markets/${encodeURIComponent(market.source)}/${encodeURIComponent(market.slug)}`;

/** The list as last found (its filters in the URL), for a market's page to lead back to. */
let lastList = '#/markets';
export const marketsListPath = () => lastList;

/** Markets: find by source, status and part of the slug (kept in the URL); each opens on its own page; admins also create. */
export const marketsView: View = async (context) => {
  const source = h('input', { attrs: { type: 'text', name: 'source', maxlength: 64, value: context.query.get('source') ?? '' } });
  const status = select('status', STATUSES, context.query.get('status') ?? '');
  const slug = h('input', { attrs: { type: 'search', name: 'q', maxlength: 256, value: context.query.get('q') ?? '' } });
  const list = h('div', { class: 'list' });

  // The filters as of the last Find: paging goes on with them, whatever is typed since.
  const typed = () => ({ source: source.value.trim(), status: status.value, q: slug.value.trim() });
  let filters = typed();
  const keep = () => {
    lastList = `#/markets${query(filters)}`;
    context.keep(filters);
  };
  keep();
  const pager = new Pager(async (cursor) => {
    const page = await context.api<{ markets: MarketItem[]; next_cursor: string | null }>(
      'GET',
      `/admin/markets${query({ ...filters, limit: PAGE_SIZE, cursor })}`,
    );
    const rows = page.markets.map((market) =>
      row(
        h('a', { attrs: { href: marketPath(market), 'aria-label': `Market #${market.id}` } }, `#${market.id}`),
        h('span', { class: 'slug' }, market.slug),
        identifier(market.source),
        badge(market.status),
        market.verdict ?? '—',
        when(market.resolved_at),
      ),
    );
    replaceChildren(list, table(['Market', 'Slug', 'Source', 'Status', 'Verdict', 'Resolved at'], rows, 'No market matches.'));
    return page.next_cursor;
  }, context);

  const find = findForm(
    context,
    'Find markets',
    [field('Source', source), field('Status', status), field('Slug contains', slug, 'Any part of the slug, in any letter case')],
    async () => {
      filters = typed();
      await pager.first();
      keep();
    },
  );
  await pager.first();
  context.show(h('h1', null, 'Markets'), find, list, pager.element, context.account.role === 'admin' ? createForm(context, () => pager.first()) : null);
};

function createForm(context: Context, reload: () => Promise<void>): HTMLElement {
  const source = h('input', { attrs: { type: 'text', name: 'source', required: true, maxlength: 64 } });
  const slug = h('input', { attrs: { type: 'text', name: 'slug', required: true, maxlength: 256 } });
  const submit = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Create market');
  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Create a market' } },
    h('h2', null, 'Create a market'),
    field('Partner source', source),
    field('Slug', slug, 'Unique within the source; spaces and “/” at either end are dropped'),
    submit,
  );
  const notices = context.at(submit);
  return whenSubmitted(form, notices.fail, async () => {
    const market = await context.api<MarketItem>('POST', '/admin/markets', { source: source.value, slug: slug.value });
    form.reset();
    await reload().catch(() => undefined);
    notices.done([
      `Market #${market.id} created; it is monitoring until it is resolved. `,
      h('a', { attrs: { href: marketPath(market) } }, `Open market #${market.id}`),
    ]);
  });
}
