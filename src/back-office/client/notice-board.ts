import { h, replaceChildren, type Child } from './dom';
import { failureLines, PageMessage } from './notices';

/** Where a notice goes: right after this element (at the end of a table cell), or where the function finds once the view has been drawn again (a row redrawn). */
export type Near = Element | (() => Element | null | undefined);

/** Confirmations and failures for one place on the page. */
export interface Notices {
  done(message: Child | Child[]): void;
  fail(error: unknown): void;
}

/** How long an emptied region sits in its new place before it speaks: a live region announces what changes in it, not what it came with. */
const SETTLE_MS = 60;

/**
 * The page's two live regions, moved beside the action each notice is about: a confirmation
 * (polite) or a failure (assertive, and it takes the focus), scrolled into view. One speaks at a
 * time, and a newer notice replaces an older one wherever that was.
 */
export class NoticeBoard {
  private readonly status = h('div', { class: 'notice notice-status', attrs: { role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' } });
  private readonly alert = h('div', { class: 'notice notice-alert', attrs: { role: 'alert', 'aria-live': 'assertive', 'aria-atomic': 'true', tabindex: -1 } });
  private shown = 0;

  /** `home` holds the regions while they are silent; `fallback` is where a notice about no particular place goes (after the view's heading). */
  constructor(
    private readonly home: HTMLElement,
    private readonly fallback: () => Element | null,
  ) {
    home.append(this.alert, this.status);
  }

  /** Notices shown after `near`. */
  at(near: Near): Notices {
    return { done: (message) => this.done(message, near), fail: (error) => this.fail(error, near) };
  }

  done(message: Child | Child[], near?: Near): void {
    if (message === '' || (Array.isArray(message) && message.length === 0)) return this.clear();
    this.show(this.status, Array.isArray(message) ? message : [message], near);
  }

  /** A failure about one field (a PageMessage naming it) goes after that field, which keeps the focus; any other takes it. */
  fail(error: unknown, near?: Near): void {
    const field = error instanceof PageMessage ? error.field : undefined;
    this.show(this.alert, failureLines(error), field ?? near, field);
  }

  /** Silent again, back home (another view, a new search). */
  clear(): void {
    this.shown++;
    for (const region of [this.alert, this.status]) {
      region.replaceChildren();
      this.home.append(region);
    }
  }

  private show(region: HTMLElement, lines: Child[], near: Near | undefined, field?: HTMLElement): void {
    this.clear();
    const mine = this.shown;
    const place = () => {
      const anchor = (typeof near === 'function' ? near() : near) ?? this.fallback();
      // In a table cell, at its end; anywhere else, right after the element.
      if (anchor?.matches('td')) anchor.append(region);
      else if (anchor?.isConnected) anchor.after(region);
    };
    place();
    setTimeout(() => {
      if (mine !== this.shown) return;
      if (!region.isConnected || region.parentElement === this.home) place();
      replaceChildren(region, ...lines);
      if (region === this.alert && !field) region.focus({ preventScroll: true });
      reveal(region);
    }, SETTLE_MS);
  }
}

/** Scrolls the window, and only the window (a table's box would scroll sideways), until `region` is in view, its top first. */
function reveal(region: HTMLElement): void {
  const margin = 16;
  const { top, bottom } = region.getBoundingClientRect();
  if (top < margin) window.scrollBy(0, top - margin);
  else if (bottom > window.innerHeight - margin) window.scrollBy(0, Math.min(bottom - window.innerHeight + margin, top - margin));
}
