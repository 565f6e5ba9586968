import { ApiFailure, call, query as queryString } from './api';
import type { Context, View } from './context';
import { h, replaceChildren, type Child } from './dom';
import { accountOf, forgetKey, storedKey, storeKey } from './session';
import type { Account } from './types';
import { auditView } from './views/audit';
import { disputeView } from './views/dispute';
import { marketView } from './views/market';
import { marketsView } from './views/markets';
import { partnerKeysView } from './views/partner-keys';
import { partnersView } from './views/partners';
import { queueView } from './views/queue';
import { reviewersView } from './views/reviewers';
import { NoticeBoard } from './notice-board';
import { failureLines } from './notices';
import { signInView } from './views/sign-in';

interface Route {
  path: RegExp;
  view: View;
  /** The navigation entry this route belongs to. */
  section: string;
  adminOnly?: boolean;
}

const ROUTES: Route[] = [
  { path: /^\/queue(?:\/(open|closed))?$/, view: queueView, section: 'queue' },
  { path: /^\/disputes\/(\d{1,19})$/, view: disputeView, section: 'queue' },
  { path: /^\/markets$/, view: marketsView, section: 'markets' },
  // A market by its source and slug, each URL-encoded (its page: the record partners read).
  { path: /^\/markets\/([^/]+)\/([^/]+)$/, view: marketView, section: 'markets' },
  { path: /^\/partners$/, view: partnersView, section: 'partners', adminOnly: true },
  // A partner's source: letters, digits, ".", "_" and "-" (its keys page).
  { path: /^\/partners\/([A-Za-z0-9._-]{1,64})\/keys$/, view: partnerKeysView, section: 'partners', adminOnly: true },
  { path: /^\/reviewers$/, view: reviewersView, section: 'reviewers', adminOnly: true },
  { path: /^\/audit$/, view: auditView, section: 'audit', adminOnly: true },
];

const SECTIONS: { section: string; label: string; href: string; adminOnly?: boolean }[] = [
  { section: 'queue', label: 'Disputes', href: '#/queue' },
  { section: 'markets', label: 'Markets', href: '#/markets' },
  { section: 'partners', label: 'Partners and keys', href: '#/partners', adminOnly: true },
  { section: 'reviewers', label: 'Reviewers', href: '#/reviewers', adminOnly: true },
  { section: 'audit', label: 'Audit trail', href: '#/audit', adminOnly: true },
];

const root = document.getElementById('app')!;

function signOut(message: string): void {
  forgetKey();
  window.removeEventListener('hashchange', onRouteChange);
  history.replaceState(null, '', location.pathname);
  signInView(root, message, startSession);
}

let onRouteChange: () => void = () => undefined;

/** The view's path and its query (#/markets?source=acme), the queue when there is none. */
function place(): { path: string; query: URLSearchParams } {
  const hash = location.hash.replace(/^#/, '') || '/queue';
  const cut = hash.indexOf('?');
  return cut < 0 ? { path: hash, query: new URLSearchParams() } : { path: hash.slice(0, cut), query: new URLSearchParams(hash.slice(cut + 1)) };
}

/** The signed-in page: navigation, the notices, and the current view. */
function startSession(key: string, account: Account): void {
  storeKey(key);
  const { role } = account;
  const main = h('main', { attrs: { id: 'main', tabindex: -1 } });
  const nav = h('nav', { class: 'sections', attrs: { 'aria-label': 'Sections' } });
  const signOutButton = h('button', { class: 'secondary', attrs: { type: 'button' }, on: { click: () => signOut('You are signed out.') } }, 'Sign out');
  const who = h('span', { class: 'who' }, 'Signed in as ', h('strong', null, account.name), ` · ${role}`);
  const notices = h('div', { class: 'notices' });
  replaceChildren(
    root,
    h('a', { class: 'skip', attrs: { href: '#main' }, on: { click: (event) => (event.preventDefault(), main.focus()) } }, 'Skip to content'),
    h('header', { class: 'topbar' }, h('span', { class: 'brand' }, 'Settlement oracle · Back office'), nav, who, signOutButton),
    notices,
    main,
  );
  const board = new NoticeBoard(notices, () => main.querySelector('h1'));

  let generation = 0;
  const render = async () => {
    const mine = ++generation;
    const { path, query } = place();
    const route = ROUTES.find((candidate) => candidate.path.test(path) && (!candidate.adminOnly || role === 'admin'));
    replaceChildren(nav, ...SECTIONS.filter((entry) => !entry.adminOnly || role === 'admin').map((entry) =>
      h('a', { attrs: { href: entry.href, 'aria-current': route?.section === entry.section ? 'page' : undefined } }, entry.label),
    ));
    board.clear();
    // A view that is no longer on screen says nothing.
    const current = () => mine === generation;
    const context: Context = {
      account,
      query,
      keep: (filters) => current() && history.replaceState(null, '', `#${path}${queryString(filters)}`),
      api: async <T>(method: string, path: string, body?: unknown) => {
        try {
          return await call<T>(key, method, path, body);
        } catch (error) {
          if (error instanceof ApiFailure && error.is('ADMIN_CREDENTIALS_INVALID')) signOut(error.message);
          throw error;
        }
      },
      show: (...children: Child[]) => {
        if (!current()) return;
        replaceChildren(main, ...children);
        main.querySelector('h1')?.setAttribute('tabindex', '-1');
      },
      at: (near) => ({ done: (message) => current() && board.done(message, near), fail: (error) => current() && board.fail(error, near) }),
      fail: (error: unknown) => current() && board.fail(error),
      done: (message) => current() && board.done(message),
      clear: () => current() && board.clear(),
      current,
    };
    if (!route) {
      context.show(h('h1', null, 'Not here'), h('p', null, 'This part of the back office does not exist, or your role cannot open it.'));
      return;
    }
    context.show(h('p', { class: 'loading' }, 'Loading…'));
    try {
      await route.view(context, path.match(route.path)!.slice(1).filter((part) => part !== undefined));
      if (current()) main.querySelector<HTMLElement>('h1')?.focus();
    } catch (error) {
      context.show(h('h1', null, 'This could not be loaded'));
      context.fail(error);
    }
  };
  onRouteChange = () => void render();
  window.addEventListener('hashchange', onRouteChange);
  void render();
}

/** The tab's session, resumed with the key it kept (a reload), or the sign-in form. */
async function boot(): Promise<void> {
  const key = storedKey();
  if (!key) return signInView(root, null, startSession);
  try {
    startSession(key, await accountOf(key));
  } catch (error) {
    // Only a key the service refuses is forgotten; when the key could not be checked (too many
    // requests, the database or the network down), the session waits for another try.
    if (error instanceof ApiFailure && error.is('ADMIN_CREDENTIALS_INVALID')) signOut(error.message);
    else notCheckedView(error);
  }
}

function notCheckedView(error: unknown): void {
  const retry = h('button', { class: 'primary', attrs: { type: 'button' }, on: { click: () => void boot() } }, 'Try again');
  replaceChildren(
    root,
    h(
      'main',
      { class: 'sign-in-page' },
      h('h1', null, 'Back office'),
      h('div', { class: 'notice notice-alert', attrs: { role: 'alert' } }, h('p', null, 'Your key could not be checked.'), ...failureLines(error)),
      h('p', { class: 'actions' }, retry, ' ', h('button', { class: 'secondary', attrs: { type: 'button' }, on: { click: () => signOut('You are signed out.') } }, 'Sign out')),
    ),
  );
  retry.focus();
}

void boot();
