import type { Context } from '../context';
import { badge, button, field, h, replaceChildren, row, table, when, whenSubmitted, type Child } from '../dom';
import type { Webhook } from '../types';
import { confirmAction } from './confirm';
import { newKeyPanel, showOnce } from './secret';

/** Partner `source`'s webhooks (admins only, contract §7): register (secret shown once), rotate, redeliver, delete. */
export async function webhooksSection(context: Context, source: string): Promise<HTMLElement> {
  const path = `/admin/partners/${encodeURIComponent(source)}/webhooks`;
  const heading = h('h2', { attrs: { id: 'webhooks-heading', tabindex: -1 } }, 'Webhooks');
  const list = h('div', { class: 'list' });
  const issued = h('div');
  const showSecret = (title: string, secret: string) => showOnce(issued, newKeyPanel(title, secret, `the partner ${source}`, 'secret'));

  const load = async () => {
    const { webhooks } = await context.api<{ webhooks: Webhook[] }>('GET', path);
    const rows = webhooks.map((webhook) => {
      const at = `${path}/${encodeURIComponent(webhook.webhook_id)}`;
      const actions = h(
        'div',
        { class: 'webhook-actions' },
        button('Rotate secret', () => rotate(webhook, at), `Rotate secret of ${webhook.url}`),
        button('Delete', () => remove(webhook, at), `Delete the webhook to ${webhook.url}`),
        redeliverForm(webhook, at),
      );
      const item = row(endpoint(webhook), webhook.description ? h('span', { class: 'description' }, webhook.description) : '—', when(webhook.created_at), lastDelivery(webhook.last_delivery), webhook.pending, actions);
      item.dataset.webhook = String(webhook.webhook_id);
      return item;
    });
    replaceChildren(list, table(['Endpoint', 'Description', 'Registered', 'Last delivery', 'Pending', 'Actions'], rows, 'No webhooks yet.'));
  };

  const rotate = (webhook: Webhook, at: string) => {
    confirmAction(
      `Rotate the secret of the webhook to ${webhook.url}?`,
      [`A new secret signs its deliveries from now on; the current one signs them too for 24 hours, while ${source} switches over.`],
      'Rotate secret',
    )
      .then(async (confirmed) => {
        if (!confirmed) return;
        const { secret } = await context.api<{ secret: string }>('POST', `${at}/rotate-secret`);
        showSecret(`New secret of the webhook to ${webhook.url}`, secret);
        context.done(`The webhook to ${webhook.url} has a new secret; the old one signs too for 24 hours.`);
      })
      .catch(context.fail);
  };

  const remove = (webhook: Webhook, at: string) => {
    confirmAction(`Delete the webhook to ${webhook.url}?`, [`${source} gets no more events there.`], 'Delete webhook')
      .then(async (confirmed) => {
        if (!confirmed) return;
        await context.api('DELETE', at);
        await load();
        // Its row, and the button that was focused, are gone: the list's heading takes the focus.
        heading.focus();
        context.done(`The webhook to ${webhook.url} is deleted.`);
      })
      .catch(context.fail);
  };

  const redeliverForm = (webhook: Webhook, at: string) => {
    const after = h('input', { attrs: { type: 'number', name: 'after', required: true, min: 0, step: 1, value: 0, inputmode: 'numeric' } });
    const form = h(
      'form',
      { class: 'redeliver', attrs: { 'aria-label': `Redeliver to ${webhook.url}` } },
      field('After sequence', after),
      h('button', { class: 'secondary', attrs: { type: 'submit', 'aria-label': `Redeliver to ${webhook.url}` } }, 'Redeliver'),
    );
    return whenSubmitted(form, context.fail, async () => {
      const { queued } = await context.api<{ queued: number }>('POST', `${at}/redeliver`, { after: Number(after.value) });
      await load();
      // The list is drawn anew: the focus goes back to this webhook's Redeliver button.
      list.querySelector<HTMLElement>(`tr[data-webhook="${CSS.escape(String(webhook.webhook_id))}"] .redeliver button`)?.focus();
      context.done(`${queued === 1 ? '1 event' : `${queued} events`} after sequence ${after.value} queued again for ${webhook.url}.`);
    });
  };

  const url = h('input', { attrs: { type: 'url', name: 'url', required: true, maxlength: 2048, spellcheck: 'false' } });
  const description = h('input', { attrs: { type: 'text', name: 'description', maxlength: 200 } });
  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Register a webhook' } },
    h('h2', null, 'Register a webhook'),
    field('URL', url, 'An https:// address that resolves to public addresses only; each event is POSTed to it, signed'),
    field('Description (optional)', description),
    h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Register webhook'),
  );
  whenSubmitted(form, context.fail, async () => {
    const text = description.value.trim();
    const created = await context.api<{ url: string; secret: string }>('POST', path, { url: url.value, ...(text ? { description: text } : {}) });
    form.reset();
    await load();
    showSecret(`Secret of the webhook to ${created.url}`, created.secret);
    context.done(`Webhook registered: ${source}'s events go to ${created.url}.`);
  });

  await load();
  return h('section', { class: 'webhooks', attrs: { 'aria-labelledby': heading.id } }, heading, list, issued, form);
}

/** Where events go, and since when they no longer do, if the service disabled the webhook. */
function endpoint(webhook: Webhook): Child {
  const url = h('code', { class: 'endpoint' }, webhook.url);
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
