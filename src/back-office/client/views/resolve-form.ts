import { CHAINS, CONFIDENCES } from '../../../markets/market-state';
import type { Context } from '../context';
import { button, field, h, select, whenSubmitted } from '../dom';
import type { MarketItem } from '../types';
import { confirmAction } from './confirm';

const CONFIDENCE_OPTIONS = CONFIDENCES.map((value): [string, string] => [value, value]);
const CHAIN_OPTIONS = CHAINS.map((value): [string, string] => [value, value]);
const MAX_PROOFS = 20;

/** Resolving a monitoring market: its verdict, confidence, reasoning and on-chain proofs; `resolved` shows the outcome and confirms it. */
export function resolveForm(context: Context, market: MarketItem, resolved: (market: MarketItem) => void): HTMLElement {
  const verdict = h('input', { attrs: { type: 'text', name: 'verdict', required: true, maxlength: 200 } });
  const confidence = select('confidence', CONFIDENCE_OPTIONS, 'HIGH');
  const reasoning = h('textarea', { attrs: { name: 'reasoning', required: true, maxlength: 10000, rows: 4 } });
  const resolvedAt = h('input', { attrs: { type: 'text', name: 'resolved_at', placeholder: '2026-11-01T12:00:00Z' } });
  const proofs = h('fieldset', { class: 'proof-rows' }, h('legend', null, 'Proofs (1 to 20 transactions)'));
  const addProof = button('Add a proof', () => {
    if (proofs.querySelectorAll('.proof-row').length < MAX_PROOFS) proofRow(proofs, addProof);
  });
  proofRow(proofs, addProof);

  const submit = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Resolve…');
  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Resolve this market' } },
    h('h2', null, 'Resolve this market'),
    field('Verdict', verdict),
    field('Confidence', confidence),
    field('Reasoning', reasoning),
    proofs,
    addProof,
    field('Resolved at (optional)', resolvedAt, 'An RFC 3339 timestamp; now when left empty'),
    submit,
  );
  return whenSubmitted(form, context.at(submit).fail, async () => {
    const body = {
      verdict: verdict.value,
      confidence: confidence.value,
      reasoning: reasoning.value,
      proofs: [...proofs.querySelectorAll('.proof-row')].map((proof) => ({
        chain: proof.querySelector('select')!.value,
        tx_hash: proof.querySelector('input')!.value.trim(),
      })),
      ...(resolvedAt.value.trim() ? { resolved_at: resolvedAt.value.trim() } : {}),
    };
    const confirmed = await confirmAction(
      `Resolve market #${market.id}?`,
      [`Partners will read the verdict “${body.verdict.trim()}” (${body.confidence}) for “${market.slug}” at once.`, 'A resolution is final: it cannot be changed afterwards.'],
      'Resolve market',
    );
    if (!confirmed) return;
    resolved(await context.api<MarketItem>('POST', `/admin/markets/${market.id}/resolve`, body));
  });
}

function proofRow(container: HTMLElement, addProof: HTMLButtonElement): void {
  const number = container.querySelectorAll('.proof-row').length + 1;
  const chain = select('chain', CHAIN_OPTIONS);
  const hash = h('input', { attrs: { type: 'text', name: 'tx_hash', required: true, maxlength: 200, spellcheck: 'false' } });
  const proof = h('div', { class: 'proof-row' }, field(`Chain of proof ${number}`, chain), field(`Transaction hash of proof ${number}`, hash));
  if (number > 1) proof.append(button('Remove', () => (proof.remove(), addProof.focus()), `Remove proof ${number}`));
  container.append(proof);
}
