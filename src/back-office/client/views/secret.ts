import { button, h } from '../dom';

/**
 * A key the API has just issued: shown this once (it is stored nowhere, and leaving the view
 * drops it), with a button that copies it.
 */
export function newKeyPanel(title: string, key: string, whoFor: string): HTMLElement {
  const value = h('input', { class: 'secret', attrs: { type: 'text', readonly: true, value: key, 'aria-label': title, spellcheck: 'false' } });
  const copied = h('span', { class: 'hint', attrs: { role: 'status' } });
  const copy = button('Copy key', () => {
    value.select();
    const fallback = () => (document.execCommand('copy') ? 'Copied.' : 'Select the key and copy it with Ctrl+C.');
    // The Clipboard API needs a secure context (https or localhost); elsewhere the selection is copied.
    const writing = navigator.clipboard ? navigator.clipboard.writeText(key).then(() => 'Copied.', fallback) : Promise.resolve(fallback());
    void writing.then((message) => (copied.textContent = message));
  });
  return h(
    'section',
    { class: 'panel new-key', attrs: { 'aria-label': title } },
    h('h2', null, title),
    h('p', null, `Shown only now: copy it and hand it to ${whoFor}. The service keeps only its hash.`),
    h('div', { class: 'inline' }, value, copy),
    copied,
  );
}
