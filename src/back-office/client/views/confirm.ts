import { h } from '../dom';

/** A modal <dialog> before an action that cannot be undone: the keyboard stays inside, Escape cancels, and Cancel has the focus first. */
export function confirmAction(title: string, lines: string[], confirmLabel: string): Promise<boolean> {
  const titleId = `confirm-${Date.now()}`;
  const dialog = h('dialog', { class: 'confirm', attrs: { 'aria-labelledby': titleId } });
  let answer: (confirmed: boolean) => void = () => undefined;
  const answered = new Promise<boolean>((resolve) => {
    // Closed and answered at once: the dialog's own close event comes a task later, and an action
    // taken meanwhile (Enter on the button that opened it) would find the page still asking.
    answer = (confirmed) => {
      dialog.close();
      dialog.remove();
      resolve(confirmed);
    };
  });
  const cancel = h('button', { class: 'secondary', attrs: { type: 'button', autofocus: true }, on: { click: () => answer(false) } }, 'Cancel');
  const confirm = h('button', { class: 'primary', attrs: { type: 'button' }, on: { click: () => answer(true) } }, confirmLabel);
  dialog.addEventListener('cancel', (event) => {
    event.preventDefault();
    answer(false);
  });
  dialog.append(
    h('h2', { attrs: { id: titleId } }, title),
    ...lines.map((line) => h('p', null, line)),
    h('div', { class: 'actions' }, cancel, confirm),
  );
  document.body.append(dialog);
  dialog.showModal();
  cancel.focus();
  return answered;
}
