/** The page's only way to build DOM: text goes in as text nodes, never markup (no innerHTML anywhere), so a slug holding HTML shows as characters. */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  /** Attributes, set with setAttribute (never an `on…` handler: use `on`). */
  attrs?: Record<string, string | number | boolean | undefined>;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props?.class) element.className = props.class;
  for (const [name, value] of Object.entries(props?.attrs ?? {})) {
    if (name.toLowerCase().startsWith('on')) throw new Error(`no inline handlers: ${name}`);
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [type, listener] of Object.entries(props?.on ?? {})) element.addEventListener(type, listener as EventListener);
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** "2026-11-20 09:00:00 UTC", in a <time> that app.css keeps on one line, so a narrow column wraps the text beside it instead. */
export function when(timestamp: string | null): HTMLTimeElement | string {
  if (!timestamp) return '—';
  return h('time', { attrs: { datetime: timestamp } }, timestamp.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') + ' UTC');
}

/** A URL that breaks only at its parts' edges (after `://`, before each `/`, `?`, `&` and `#`), never inside its host and port (app.css). */
export function urlText(url: string): Child[] {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/i.exec(url);
  if (!match) return [url];
  const [, scheme, host, rest] = match;
  const parts = rest.split(/(?=[/?&#])/).filter(Boolean);
  return [scheme, h('wbr'), h('span', { class: 'url-host' }, host), ...parts.flatMap((part) => [h('wbr'), part])];
}

/** A URL as code, broken only where urlText allows. */
export const urlCode = (url: string, className = ''): HTMLElement => h('code', { class: `url ${className}`.trim() }, ...urlText(url));

/** An identifier (a partner's source, an audit target) kept on one line where there is room. */
export const identifier = (text: string): HTMLSpanElement => h('span', { class: 'identifier' }, text);

/** A definition list of label → value rows; values are text or nodes. */
export function facts(rows: [string, Child][]): HTMLDListElement {
  const list = h('dl', { class: 'facts' });
  for (const [label, value] of rows) append(list, h('dt', null, label), h('dd', null, value ?? '—'));
  return list;
}

/** A narrow screen shows rows as cards (app.css, cells labelled by `data-label`); explicit roles keep it a table for assistive technology once displayed as blocks. */
export function table(headings: string[], rows: HTMLTableRowElement[], empty: string): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  for (const tableRow of rows) {
    tableRow.setAttribute('role', 'row');
    [...tableRow.cells].forEach((cell, index) => {
      cell.setAttribute('role', 'cell');
      if (headings[index]) cell.dataset.label = headings[index];
    });
  }
  const head = h('tr', { attrs: { role: 'row' } }, ...headings.map((heading) => h('th', { attrs: { scope: 'col', role: 'columnheader' } }, heading)));
  return h(
    'div',
    { class: 'table-wrap' },
    h('table', { attrs: { role: 'table' } }, h('thead', { attrs: { role: 'rowgroup' } }, head), h('tbody', { attrs: { role: 'rowgroup' } }, ...rows)),
  );
}

export function row(...cells: Child[]): HTMLTableRowElement {
  return h('tr', null, ...cells.map((cell) => h('td', null, cell)));
}

export function badge(text: string): HTMLSpanElement {
  return h('span', { class: `badge badge-${text.replace(/[^a-z]/g, '')}` }, text);
}

/** A labelled form control; `control` gets the id the label points at. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLElement {
  const id = `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${++fieldCount}`;
  control.id = id;
  const hintNode = hint ? h('span', { class: 'hint', attrs: { id: `${id}-hint` } }, hint) : null;
  if (hintNode) control.setAttribute('aria-describedby', hintNode.id);
  return h('div', { class: 'field' }, h('label', { attrs: { for: id } }, label), control, hintNode);
}
let fieldCount = 0;

/** A select of [value, label] options; the first is chosen unless `value` names another. */
export function select(name: string, options: [string, string][], value?: string): HTMLSelectElement {
  const element = h('select', { attrs: { name } }, ...options.map(([optionValue, label]) => h('option', { attrs: { value: optionValue } }, label)));
  if (value !== undefined) element.value = value;
  return element;
}

/** A button; `name`, when given, is what assistive technology reads for a short `label`. */
export function button(label: string, onClick: (event: MouseEvent) => void, name?: string): HTMLButtonElement {
  return h('button', { class: 'secondary', attrs: { type: 'button', 'aria-label': name }, on: { click: onClick } }, label);
}

/** `work` as a handler that runs once at a time: a call while it is at work is ignored (no double writes). */
function oneAtATime(work: () => Promise<void>, fail: (error: unknown) => void): () => void {
  let busy = false;
  return () => {
    if (busy) return;
    busy = true;
    work()
      .catch(fail)
      .finally(() => (busy = false));
  };
}

/** Runs `work` on submit, in place of a navigation, once at a time; the button stays enabled, as a disabled one loses the keyboard focus. */
export function whenSubmitted(form: HTMLFormElement, fail: (error: unknown) => void, work: () => Promise<void>): HTMLFormElement {
  const run = oneAtATime(work, fail);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run();
  });
  return form;
}

/** A button that writes: `work` runs once at a time (a double click issues nothing twice). */
export function writeButton(label: string, fail: (error: unknown) => void, work: () => Promise<void>, name?: string): HTMLButtonElement {
  return button(label, oneAtATime(work, fail), name);
}
