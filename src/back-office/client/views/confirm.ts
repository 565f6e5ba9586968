import { h } from '../dom';

/**
 * Asks before an action that cannot be undone, in a modal <dialog>: the keyboard stays inside
 * it, Escape cancels, and Cancel has the focus first.
 */
export function confirmAction(title: string, lines: string[], confirmLabel: string): Promise<boolean> {
  const titleId = `confirm-${Date.now()}`;
  const dialog = h('dialog', { class: 'confirm', attrs: { 'aria-labelledby': titleId } });
  const close = (answer: string) => dialog.close(answer);
  const cancel = h('button', { class: 'secondary', attrs: { type: 'button', autofocus: true }, on: { click: () => close('cancel') } }, 'Cancel');
  const confirm = h('button', { class: 'primary', attrs: { type: 'button' }, on: { click: () => close('confirm') } }, confirmLabel);
  dialog.append(
    h('h2', { attrs: { id: titleId } }, title),
    ...lines.map((line) => h('p', null, line)),
    h('div', { class: 'actions' }, cancel, confirm),
  );
  document.body.append(dialog);
  dialog.showModal();
  cancel.focus();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
  });
}
