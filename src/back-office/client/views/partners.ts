import type { Context, View } from '../context';
import { badge, button, field, h, identifier, replaceChildren, row, table, when, whenSubmitted, writeButton } from '../dom';
import { confirmAction } from './confirm';
import { newKeyPanel } from './secret';

interface PartnerKey {
  key_id: number;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

interface Partner {
  source: string;
  name: string;
  created_at: string;
  keys: PartnerKey[];
}

/** Partners and their API keys (admins only): register a partner, issue and revoke keys. */
export const partnersView: View = async (context) => {
  const list = h('div', { class: 'list' });
  const issued = h('div');
  const showKey = (title: string, key: string, partner: string) => {
    replaceChildren(issued, newKeyPanel(title, key, `the partner ${partner}`));
    issued.querySelector<HTMLElement>('h2')?.setAttribute('tabindex', '-1');
    issued.querySelector<HTMLElement>('h2')?.focus();
  };
  const load = async () => {
    const { partners } = await context.api<{ partners: Partner[] }>('GET', '/admin/partners');
    const issueButton = (partner: Partner) =>
      writeButton('Issue a key', context.fail, async () => {
        const key = await context.api<{ key_id: number; api_key: string }>('POST', `/admin/partners/${encodeURIComponent(partner.source)}/keys`);
        await load();
        showKey(`New key of ${partner.source}`, key.api_key, partner.source);
        context.done(`Key ${key.key_id} issued for ${partner.source}.`);
      }, `Issue a key for ${partner.source}`);
    // The button under the partner's keys, not in a column of its own: the table fits a laptop.
    const rows = partners.map((partner) =>
      row(identifier(partner.source), partner.name, when(partner.created_at), h('div', null, keyList(context, partner, load), issueButton(partner))),
    );
    replaceChildren(list, table(['Source', 'Name', 'Registered', 'Keys'], rows, 'No partners yet.'));
  };
  await load();
  context.show(h('h1', null, 'Partners and keys'), list, issued, createForm(context, showKey, load));
};

function keyList(context: Context, partner: Partner, reload: () => Promise<void>): HTMLElement {
  return h(
    'ul',
    { class: 'plain keys' },
    ...partner.keys.map((key) =>
      h(
        'li',
        null,
        h('code', null, `${key.prefix}…`),
        ' ',
        key.revoked_at ? badge('revoked') : badge('active'),
        ' ',
        h('span', null, 'created ', when(key.created_at)),
        ' ',
        key.revoked_at
          ? null
          : button('Revoke', () => {
              confirmAction(`Revoke key ${key.prefix}… of ${partner.source}?`, ['Requests with this key fail at once, on every instance.'], 'Revoke key')
                .then(async (confirmed) => {
                  if (!confirmed) return;
                  await context.api('DELETE', `/admin/partners/${encodeURIComponent(partner.source)}/keys/${key.key_id}`);
                  await reload();
                  context.done(`Key ${key.prefix}… of ${partner.source} is revoked.`);
                })
                .catch(context.fail);
            }, `Revoke ${key.prefix}…`),
      ),
    ),
  );
}

function createForm(context: Context, showKey: (title: string, key: string, partner: string) => void, reload: () => Promise<void>): HTMLElement {
  const source = h('input', { attrs: { type: 'text', name: 'source', required: true, maxlength: 64 } });
  const name = h('input', { attrs: { type: 'text', name: 'name', required: true, maxlength: 200 } });
  const form = h(
    'form',
    { class: 'panel', attrs: { 'aria-label': 'Register a partner' } },
    h('h2', null, 'Register a partner'),
    field('Source', source, 'Letters, digits, “.”, “_” and “-”; it appears in URLs and is shared with the partner'),
    field('Name', name),
    h('button', { class: 'primary', attrs: { type: 'submit' } }, 'Register partner'),
  );
  return whenSubmitted(form, context.fail, async () => {
    const created = await context.api<{ source: string; api_key: string }>('POST', '/admin/partners', { source: source.value, name: name.value });
    form.reset();
    await reload();
    showKey(`First key of ${created.source}`, created.api_key, created.source);
    context.done(`Partner ${created.source} registered.`);
  });
}
