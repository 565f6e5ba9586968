import { call, query } from '../api';
import { badge, facts, h, when } from '../dom';
import type { MarketItem, Proof } from '../types';

/** Where a proof's transaction can be read, by chain. */
const EXPLORERS: Record<string, string> = {
  base: 'https://basescan.org/tx/',
  bsc: 'https://bscscan.com/tx/',
};

export function explorerUrl(proof: Proof): string | null {
  const base = EXPLORERS[proof.chain];
  return base === undefined ? null : base + encodeURIComponent(proof.tx_hash);
}

/** The record partners read for (source, slug), from the public read itself: exactly what they see. */
export async function publicRecord(source: string, slug: string): Promise<MarketItem | null> {
  const { markets } = await call<{ markets: MarketItem[] }>(null, 'GET', `/oracle/markets/public${query({ source, slug })}`);
  return markets[0] ?? null;
}

function proofList(proofs: Proof[]): HTMLElement {
  if (proofs.length === 0) return h('span', null, 'none yet');
  return h(
    'ol',
    { class: 'proofs' },
    ...proofs.map((proof) => {
      const url = explorerUrl(proof);
      const hash = h('code', null, proof.tx_hash);
      return h(
        'li',
        null,
        h('span', { class: 'chain' }, proof.chain),
        ' ',
        url ? h('a', { attrs: { href: url, target: '_blank', rel: 'noopener noreferrer' } }, hash) : hash,
      );
    }),
  );
}

/** A market's settlement record: verdict, confidence, reasoning, proofs, and its dispute if any. */
export function marketRecord(market: MarketItem, heading: string): HTMLElement {
  const disputes = (market.disputes ?? []).map((dispute) =>
    h(
      'li',
      null,
      h('a', { attrs: { href: `#/disputes/${dispute.id}` } }, `Dispute #${dispute.id}`),
      ` (${dispute.status}): the submitter says “${dispute.submitter_selection}”`,
      dispute.decision ? `; decided ${dispute.decision.type}, partners settle on “${dispute.decision.partner_final_verdict}”` : '',
    ),
  );
  return h(
    'section',
    { class: 'panel market-record', attrs: { 'aria-label': heading } },
    h('h2', null, heading),
    facts([
      ['Market', `#${market.id}`],
      ['Source', market.source],
      ['Slug', h('span', { class: 'slug' }, market.slug)],
      ['Status', badge(market.status)],
      ['Verdict', market.verdict ?? '—'],
      ['Confidence', market.confidence ?? '—'],
      ['Resolved at', when(market.resolved_at)],
      ['Reasoning', market.reasoning ? h('p', { class: 'text' }, market.reasoning) : '—'],
      ['Proofs', proofList(market.proofs)],
      ['Dispute', disputes.length > 0 ? h('ul', { class: 'plain' }, ...disputes) : 'none'],
    ]),
  );
}
