import type { Context } from '../context';
import { field, h, replaceChildren, table, whenSubmitted } from '../dom';
import type { Webhook } from '../types';
import { newKeyPanel, showOnce } from './secret';
import { webhookRow, type WebhookActions } from './webhook-row';

/** What the URL field says the server takes (WEBHOOK_ALLOW_PRIVATE_URLS, from the list). */
const URL_HINT = {
  public: 'An https:// address that resolves to public addresses only; each event is POSTed to it, signed',
  private: 'An https:// or http:// address; this server also takes private and loopback addresses (development only). Each event is POSTed to it, signed',
};

/** Partner `source`'s webhooks (admins only, contract §7): register (secret shown once), rotate, redeliver, delete. */
export async function webhooksSection(context: Context, source: string): Promise<HTMLElement> {
  const path = `/admin/partners/${encodeURIComponent(source)}/webhooks`;
  const heading = h('h2', { attrs: { id: 'webhooks-heading', tabindex: -1 } }, 'Webhooks');
  const list = h('div', { class: 'list' });
  const issued = h('div');
  const url = h('input', { attrs: { type: 'url', name: 'url', required: true, maxlength: 2048, spellcheck: 'false' } });
  const urlField = field('URL', url, URL_HINT.public);

  const actions: WebhookActions = {
    context,
    source,
    path,
    reload: () => load(),
    showSecret: (title, secret) => showOnce(context, issued, newKeyPanel(title, secret, `the partner ${source}`, 'secret')),
    // A deleted webhook's row, and the button that was focused, are gone: the list's heading takes the focus.
    deleted: () => (heading.focus(), context.at(heading)),
  };
  const load = async () => {
    const answer = await context.api<{ webhooks: Webhook[]; private_urls_allowed: boolean }>('GET', path);
    urlField.querySelector('.hint')!.textContent = answer.private_urls_allowed ? URL_HINT.private : URL_HINT.public;
    const headings = ['Endpoint', 'Description', 'Registered', 'Last delivery', 'Pending', 'Actions'];
    replaceChildren(list, table(headings, answer.webhooks.map((webhook) => webhookRow(actions, webhook)), 'No webhooks yet.'));
  };

  const description = h('input', { attrs: { type: 'text', name: 'description', maxlength: 200 } });
  const submit = h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Register webhook');
  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Register a webhook' } },
    h('h2', null, 'Register a webhook'),
    urlField,
    field('Description (optional)', description),
    submit,
  );
  whenSubmitted(form, context.at(submit).fail, async () => {
    const text = description.value.trim();
    const created = await context.api<{ url: string; secret: string }>('POST', path, { url: url.value, ...(text ? { description: text } : {}) });
    form.reset();
    await load();
    actions.showSecret(`Secret of the webhook to ${created.url}`, created.secret).done(`Webhook registered: ${source}'s events go to ${created.url}.`);
  });

  await load();
  return h('section', { class: 'webhooks', attrs: { 'aria-labelledby': heading.id } }, heading, list, issued, form);
}
