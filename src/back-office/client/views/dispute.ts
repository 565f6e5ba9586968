import { ApiFailure } from '../api';
import type { Context, View } from '../context';
import { badge, facts, field, h, when, whenSubmitted } from '../dom';
import { failureLines, PageMessage } from '../notices';
import { ErrorCatalogue } from '../../../common/error-catalogue';
import { sentenceFor } from '../sentences';
import type { AdminDispute, DecisionType, MarketItem } from '../types';
import { confirmAction } from './confirm';
import { marketRecord, publicRecord } from './market-record';

/** What partners will settle on after each decision (contract §3). */
function finalVerdict(dispute: AdminDispute, type: DecisionType): string {
  return type === 'override' ? dispute.submitter_selection : (dispute.verdict ?? '—');
}

/** One dispute in full, beside the market's public record; an open one can be decided here. */
export const disputeView: View = async (context, [id]) => {
  // No dispute has such an id: the API would call it an invalid request, about a field nobody typed.
  if (!(Number(id) >= 1 && Number.isSafeInteger(Number(id)))) throw new PageMessage(sentenceFor(ErrorCatalogue.DISPUTE_NOT_FOUND.code));
  const dispute = await context.api<AdminDispute>('GET', `/admin/disputes/${id}`);
  context.show(...disputePage(context, dispute, await recordOf(dispute)));
};

/** The market's public record, or why it could not be read (a rate limit, the database away): the dispute is shown, and can be decided, without it. */
async function recordOf(dispute: AdminDispute): Promise<MarketItem | null | ApiFailure> {
  try {
    return await publicRecord(dispute.source, dispute.slug);
  } catch (error) {
    if (error instanceof ApiFailure) return error;
    throw error;
  }
}

const RECORD_HEADING = 'Market record (what partners see)';
const DECISION_HEADING = 'decision-heading';

/** The focus was in the form, which is gone: it moves to the decision shown in its place, so a keyboard user reads on from there. */
async function showDecided(context: Context, dispute: AdminDispute): Promise<void> {
  context.show(...disputePage(context, dispute, await recordOf(dispute)));
  if (context.current()) document.getElementById(DECISION_HEADING)?.focus();
}

/** Beside the decision shown in place of the form. */
const decisionNotices = (context: Context) => context.at(() => document.getElementById(DECISION_HEADING));

function recordPanel(record: MarketItem | null | ApiFailure): HTMLElement {
  if (record instanceof ApiFailure) {
    return h(
      'section',
      { class: 'panel', attrs: { 'aria-label': RECORD_HEADING } },
      h('h2', null, RECORD_HEADING),
      h('p', null, "The market's public record could not be loaded; reload the page to try again."),
      ...failureLines(record),
    );
  }
  return record ? marketRecord(record, RECORD_HEADING) : h('p', { class: 'empty' }, 'The market has no public record.');
}

function disputePage(context: Context, dispute: AdminDispute, record: MarketItem | null | ApiFailure) {
  const decision = dispute.decision;
  return [
    h('p', null, h('a', { attrs: { href: '#/queue' } }, '← Dispute queue')),
    h('h1', null, `Dispute #${dispute.id} `, badge(dispute.status)),
    h(
      'div',
      { class: 'columns' },
      h(
        'div',
        null,
        h(
          'section',
          { class: 'panel', attrs: { 'aria-label': 'The dispute' } },
          h('h2', null, 'The dispute'),
          facts([
            ['Market', h('span', null, h('span', { class: 'slug' }, dispute.slug), ` (#${dispute.market_id}, ${dispute.source})`)],
            ['Oracle verdict', dispute.verdict ?? '—'],
            ['Submitter says', h('strong', null, dispute.submitter_selection)],
            ['Reason', h('p', { class: 'text' }, dispute.reason_text)],
            ['Submitter', `${dispute.submitter_name} (id ${dispute.submitter_id})`],
            ['Submitted at', when(dispute.submitted_at)],
          ]),
        ),
        decision
          ? h(
              'section',
              { class: 'panel decision', attrs: { 'aria-label': 'Decision' } },
              h('h2', { attrs: { id: DECISION_HEADING, tabindex: -1 } }, 'Decision'),
              facts([
                ['Decision', decision.type === 'keep' ? "keep the oracle's verdict" : "override with the submitter's selection"],
                ['Partners settle on', h('strong', null, decision.partner_final_verdict)],
                ['Reason', h('p', { class: 'text' }, decision.reason_text)],
                ['Decided by', decision.decided_by ?? '—'],
                ['Decided at', when(decision.decided_at)],
              ]),
            )
          : decisionForm(context, dispute),
      ),
      recordPanel(record),
    ),
  ];
}

function decisionForm(context: Context, dispute: AdminDispute): HTMLElement {
  const choice = (type: DecisionType, label: string) =>
    h(
      'label',
      { class: 'choice' },
      h('input', { attrs: { type: 'radio', name: 'type', value: type, required: true } }),
      ` ${label}: partners settle on “${finalVerdict(dispute, type)}”`,
    );
  const reason = h('textarea', { attrs: { name: 'reason_text', required: true, maxlength: 4000, rows: 4 } });
  const submit = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Decide…');

  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Decide' } },
    h('h2', null, 'Decide'),
    h('fieldset', null, h('legend', null, 'Decision'), choice('keep', "Keep the oracle's verdict"), choice('override', "Override with the submitter's selection")),
    field('Reason (partners read it)', reason),
    submit,
  );
  return whenSubmitted(form, context.at(submit).fail, async () => {
    // `required` lets spaces through; the service would refuse them only after the confirmation.
    const text = reason.value.trim();
    if (text === '') {
      reason.focus();
      throw new PageMessage('Write the reason for the decision: partners read it.', reason);
    }
    await decide(context, dispute, new FormData(form).get('type') as DecisionType, text);
  });
}

async function decide(context: Context, dispute: AdminDispute, type: DecisionType, reason: string): Promise<void> {
  const verdict = finalVerdict(dispute, type);
  const confirmed = await confirmAction(
    type === 'override' ? `Override dispute #${dispute.id}?` : `Keep the verdict of dispute #${dispute.id}?`,
    [
      type === 'override'
        ? `Partners will settle “${dispute.slug}” on “${verdict}”, the submitter's selection, instead of the oracle's “${dispute.verdict ?? '—'}”.`
        : `Partners will settle “${dispute.slug}” on “${verdict}”, the oracle's verdict, as before.`,
      'The decision is final: it cannot be changed afterwards.',
    ],
    `${type === 'override' ? 'Override' : 'Keep'}: partners settle on “${verdict}”`,
  );
  if (!confirmed) return;
  try {
    const decided = await context.api<AdminDispute>('POST', `/admin/disputes/${dispute.id}/decision`, { type, reason_text: reason });
    await showDecided(context, decided);
    decisionNotices(context).done(`Decision recorded: partners now settle on “${decided.decision?.partner_final_verdict}”.`);
  } catch (error) {
    if (!(error instanceof ApiFailure && error.is('DISPUTE_ALREADY_DECIDED'))) throw error;
    // Someone else decided first: show their decision rather than ours.
    const current = await context.api<AdminDispute>('GET', `/admin/disputes/${dispute.id}`);
    await showDecided(context, current);
    const theirs = current.decision;
    decisionNotices(context).fail(
      new PageMessage(
        `${error.message} ${theirs?.decided_by ?? 'Another reviewer'} chose to ${theirs?.type ?? 'decide'}: ` +
          `partners settle on “${theirs?.partner_final_verdict ?? '—'}”. Your decision was not recorded.`,
      ),
    );
  }
}
