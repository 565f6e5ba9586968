import { ErrorCatalogue } from '../../../common/error-catalogue';
import type { Context, View } from '../context';
import { badge, h } from '../dom';
import { PageMessage } from '../notices';
import { sentenceFor } from '../sentences';
import type { MarketItem } from '../types';
import { marketRecord, publicRecord } from './market-record';
import { marketsListPath } from './markets';
import { resolveForm } from './resolve-form';

const RECORD_HEADING = 'Settlement record (what partners see)';

/** One market on a page of its own (#/markets/{source}/{slug}): its public record, and for an admin the resolve form while it is monitoring. */
export const marketView: View = async (context, [encodedSource, encodedSlug]) => {
  const notFound = new PageMessage(sentenceFor(ErrorCatalogue.MARKET_NOT_FOUND.code));
  let source: string;
  let slug: string;
  try {
    [source, slug] = [decodeURIComponent(encodedSource), decodeURIComponent(encodedSlug)];
  } catch {
    throw notFound;
  }
  const market = await publicRecord(source, slug);
  if (!market) throw notFound;
  showMarket(context, market);
};

function showMarket(context: Context, market: MarketItem): void {
  const resolvable = context.account.role === 'admin' && market.status === 'monitoring';
  context.show(
    h('p', null, h('a', { attrs: { href: marketsListPath() } }, '← Markets')),
    h('h1', null, `Market #${market.id} `, badge(market.status)),
    h('div', { class: 'columns' }, marketRecord(market, RECORD_HEADING), resolvable ? resolveForm(context, market, (resolved) => whenResolved(context, resolved)) : null),
  );
}

/** The form the focus was in is gone: the record takes it, with the confirmation after its heading. */
function whenResolved(context: Context, market: MarketItem): void {
  showMarket(context, market);
  const heading = document.querySelector<HTMLElement>('.market-record h2');
  heading?.setAttribute('tabindex', '-1');
  heading?.focus();
  context.at(() => document.querySelector('.market-record h2')).done(`Market #${market.id} resolved: “${market.verdict}”.`);
}
