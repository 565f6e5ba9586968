import { REDELIVER_LIMIT } from '../../../webhooks/redeliver-limit';
import type { Context } from '../context';
import { badge, button, field, h, row, urlCode, when, whenSubmitted, type Child } from '../dom';
import type { Notices } from '../notice-board';
import type { Webhook } from '../types';
import { confirmAction } from './confirm';

/** What a webhook's row acts with: the partner's webhooks path, and the section's list and panels. */
export interface WebhookActions {
  context: Context;
  source: string;
  path: string;
  reload(): Promise<void>;
  /** Shows a secret once; its notices go beside it. */
  showSecret(title: string, secret: string): Notices;
  /** After a delete, which removed the row: notices for the list. */
  deleted(): Notices;
}

const events = (count: number) => (count === 1 ? '1 event' : `${count.toLocaleString('en')} events`);

/** One webhook: where it points, its deliveries, and rotate, delete and redeliver. */
export function webhookRow(actions: WebhookActions, webhook: Webhook): HTMLTableRowElement {
  const { context, source } = actions;
  const at = `${actions.path}/${encodeURIComponent(webhook.webhook_id)}`;
  // The list is drawn anew after a write: notices go to this webhook's new row.
  const cell = () => document.querySelector(`tr[data-webhook="${webhook.webhook_id}"] td:last-child`);
  const notices = context.at(cell);

  const rotate = () => {
    confirmAction(
      `Rotate the secret of the webhook to ${webhook.url}?`,
      [`A new secret signs its deliveries from now on; the current one signs them too for 24 hours, while ${source} switches over.`],
      'Rotate secret',
    )
      .then(async (confirmed) => {
        if (!confirmed) return;
        const { secret } = await context.api<{ secret: string }>('POST', `${at}/rotate-secret`);
        actions.showSecret(`New secret of the webhook to ${webhook.url}`, secret).done(`The webhook to ${webhook.url} has a new secret; the old one signs too for 24 hours.`);
      })
      .catch(notices.fail);
  };
  const remove = () => {
    confirmAction(`Delete the webhook to ${webhook.url}?`, [`${source} gets no more events there.`], 'Delete webhook')
      .then(async (confirmed) => {
        if (!confirmed) return;
        await context.api('DELETE', at);
        await actions.reload();
        actions.deleted().done(`The webhook to ${webhook.url} is deleted.`);
      })
      .catch(notices.fail);
  };

  const buttons = h(
    'div',
    { class: 'webhook-actions' },
    button('Rotate secret', rotate, `Rotate secret of ${webhook.url}`),
    button('Delete', remove, `Delete the webhook to ${webhook.url}`),
    redeliverForm(actions, webhook, at, notices),
  );
  const description = webhook.description ? h('span', { class: 'description' }, webhook.description) : '—';
  const item = row(endpoint(webhook), description, when(webhook.created_at), lastDelivery(webhook.last_delivery), webhook.pending, buttons);
  item.dataset.webhook = String(webhook.webhook_id);
  return item;
}

/** Sends events again after a sequence (by default the last delivered), once the count it would send is confirmed. */
function redeliverForm(actions: WebhookActions, webhook: Webhook, at: string, notices: Notices): HTMLFormElement {
  const { context, source } = actions;
  const last = webhook.last_delivered_sequence;
  const after = h('input', {
    attrs: { type: 'number', name: 'after', required: true, min: 0, max: Number.MAX_SAFE_INTEGER, step: 1, value: last ?? 0, inputmode: 'numeric' },
  });
  const hint = last === null ? 'Nothing delivered yet' : `Last delivered: ${last}`;
  const submit = h('button', { class: 'secondary', attrs: { type: 'submit', 'aria-label': `Redeliver to ${webhook.url}` } }, 'Redeliver…');
  const form = h('form', { class: 'redeliver', attrs: { 'aria-label': `Redeliver to ${webhook.url}` } }, field('After sequence', after, hint), submit);
  return whenSubmitted(form, notices.fail, async () => {
    const from = Number(after.value);
    const { events: count } = await context.api<{ events: number }>('GET', `${at}/redeliverable?after=${from}`);
    if (count === 0) return notices.done([`No event after sequence ${from} to send again to `, urlCode(webhook.url), '.']);
    const confirmed = await confirmAction(
      `Send ${events(count)} again to ${webhook.url}?`,
      [
        `${source}'s events after sequence ${from}, oldest first. The endpoint gets them again with the same webhook-id.`,
        count >= REDELIVER_LIMIT ? `That is the most one redeliver sends: for the rest, redeliver again after the last one sent.` : '',
      ].filter(Boolean),
      `Send ${events(count)} again`,
    );
    if (!confirmed) return;
    const { queued } = await context.api<{ queued: number }>('POST', `${at}/redeliver`, { after: from });
    await actions.reload();
    // The list is drawn anew: the focus goes back to this webhook's Redeliver button.
    document.querySelector<HTMLElement>(`tr[data-webhook="${webhook.webhook_id}"] .redeliver button`)?.focus();
    notices.done([`${events(queued)} after sequence ${from} queued again for `, urlCode(webhook.url), '.']);
  });
}

/** Where events go, and since when they no longer do, if the service disabled the webhook. */
function endpoint(webhook: Webhook): Child {
  const url = urlCode(webhook.url, 'endpoint');
  return webhook.disabled_at ? h('span', null, url, ' ', badge('disabled'), ' since ', when(webhook.disabled_at)) : url;
}

/** The last attempt: when, and the endpoint's HTTP status or why there was none. */
function lastDelivery(delivery: Webhook['last_delivery']): Child {
  if (!delivery) return 'never';
  return h(
    'span',
    null,
    when(delivery.at),
    delivery.http_status === null ? null : ` · HTTP ${delivery.http_status}`,
    delivery.error ? h('span', { class: 'details' }, delivery.error) : null,
  );
}
