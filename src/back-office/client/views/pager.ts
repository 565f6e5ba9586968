import type { Context } from '../context';
import { button, h, replaceChildren } from '../dom';

/** Keyset paging: `loadPage(cursor)` shows a page and returns its next_cursor; earlier cursors are kept so Previous can go back. */
export class Pager {
  readonly element = h('nav', { class: 'pager', attrs: { 'aria-label': 'Pages' } });
  private readonly before: (string | null)[] = [];
  private cursor: string | null = null;
  private next: string | null = null;
  /** A page is loading: another step waits for it (a double click moves one page). */
  private loading = false;

  constructor(
    private readonly loadPage: (cursor: string | null) => Promise<string | null>,
    /** A page that could not be loaded is said beside the pager's buttons. */
    private readonly context: Pick<Context, 'at'>,
  ) {}

  /** Back to the first page (after a filter changes, or a write). */
  async first(): Promise<void> {
    this.before.length = 0;
    await this.show(null);
  }

  /** The page on screen again (after a write on it). */
  async reload(): Promise<void> {
    await this.show(this.cursor);
  }

  private async show(cursor: string | null): Promise<void> {
    this.next = await this.loadPage(cursor);
    this.cursor = cursor;
    this.draw();
  }

  private go(step: 'previous' | 'next'): void {
    if (this.loading) return;
    this.loading = true;
    const target = step === 'next' ? this.next : this.before[this.before.length - 1];
    if (step === 'next') this.before.push(this.cursor);
    else this.before.pop();
    this.show(target ?? null)
      .catch((error: unknown) => {
        // Stay where we were: the page on screen is still the one the cursors describe.
        if (step === 'next') this.before.pop();
        else this.before.push(target ?? null);
        this.context.at(this.element).fail(error);
      })
      .finally(() => (this.loading = false));
  }

  private draw(): void {
    if (this.before.length === 0 && this.next === null) return replaceChildren(this.element);
    const previous = button('Previous page', () => this.go('previous'));
    const next = button('Next page', () => this.go('next'));
    previous.disabled = this.before.length === 0;
    next.disabled = this.next === null;
    replaceChildren(this.element, previous, h('span', { class: 'page-number' }, `Page ${this.before.length + 1}`), next);
  }
}
