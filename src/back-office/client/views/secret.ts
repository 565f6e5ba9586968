import type { Context } from '../context';
import { button, h, replaceChildren } from '../dom';
import type { Notices } from '../notice-board';

/** What a panel shows once: an API key (of a partner or a reviewer), or a webhook's signing secret. */
type Shown = 'key' | 'secret';
const KEPT: Record<Shown, string> = {
  key: 'The service keeps only its hash.',
  // Signing needs the secret itself, so unlike a key it is kept, but never shown again.
  secret: 'The service keeps it to sign the deliveries and never shows it again.',
};

/** A key or secret just issued: shown this once (leaving the view drops it), with a button that copies it. */
export function newKeyPanel(title: string, key: string, whoFor: string, shown: Shown = 'key'): HTMLElement {
  const value = h('input', { class: 'secret', attrs: { type: 'text', readonly: true, value: key, 'aria-label': title, spellcheck: 'false' } });
  const copied = h('span', { class: 'hint', attrs: { role: 'status' } });
  const copy = button(`Copy ${shown}`, () => {
    value.select();
    const fallback = () => (document.execCommand('copy') ? 'Copied.' : `Select the ${shown} and copy it with Ctrl+C.`);
    // The Clipboard API needs a secure context (https or localhost); elsewhere the selection is copied.
    const writing = navigator.clipboard ? navigator.clipboard.writeText(key).then(() => 'Copied.', fallback) : Promise.resolve(fallback());
    void writing.then((message) => (copied.textContent = message));
  });
  return h(
    'section',
    { class: 'panel new-key', attrs: { 'aria-label': title } },
    h('h2', { attrs: { tabindex: -1 } }, title),
    h('p', null, `Shown only now: copy it and hand it to ${whoFor}. ${KEPT[shown]}`),
    h('div', { class: 'inline' }, value, copy),
    copied,
  );
}

/** Shows `panel` (a newKeyPanel) in `container`, the focus on its heading, where reading it starts; its notices go after that heading. */
export function showOnce(context: Pick<Context, 'at'>, container: HTMLElement, panel: HTMLElement): Notices {
  replaceChildren(container, panel);
  const heading = panel.querySelector('h2')!;
  heading.focus();
  return context.at(heading);
}
