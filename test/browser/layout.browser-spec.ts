import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { BrowserHarness, signIn } from './support/browser';
import { layoutProblems } from './support/layout';
import { Seed } from './support/seed';

const MASTER = 'browser-master-key-0123456789abcdef';
const HASH = '0x5e0be1f4a8c2d3b6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e';
/** A phone held upright, a laptop, a wide desktop (the content stops widening at 1180 px). */
const WIDTHS = [390, 1280, 1920];
/** Where northwind-markets' webhook points: a long URL, nobody listening (its deliveries fail). */
const WEBHOOK = 'http://127.0.0.1:9/northwind-markets/settlement-oracle/events?channel=production-settlements';
const MONITORING_SLUG = 'will-the-next-fed-meeting-cut-rates-by-50-basis-points';
/** Set to a folder to keep a screenshot of every page at every width (to look at by eye). */
const SHOTS = process.env.BACK_OFFICE_SHOTS;

describe('the back office page: every page fits the screen', () => {
  let harness: BrowserHarness;
  let seed: Seed;
  let adminKey: string;
  const disputes: { open: number; closed: number } = { open: 0, closed: 0 };
  let monitoring = 0;

  beforeAll(async () => {
    // The webhook's loopback URL needs WEBHOOK_ALLOW_PRIVATE_URLS.
    harness = await BrowserHarness.start({ ADMIN_MASTER_KEY: MASTER, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    seed = new Seed(harness.t, MASTER);
    adminKey = await seed.reviewer('Ada Lovelace', 'admin');
    await seed.reviewer('Quinn Reviewer', 'reviewer');
    const partnerKey = await seed.partner('northwind-markets', 'Northwind Prediction Markets International Ltd.');
    await seed.partner('acme', 'Acme');
    const issued: number[] = [];
    // 20 keys in all: the partners page lists them with a link to all of them.
    for (let i = 0; i < 19; i++) issued.push((await seed.admin<{ key_id: number }>('post', '/admin/partners/northwind-markets/keys')).key_id);
    await seed.admin('delete', `/admin/partners/northwind-markets/keys/${issued[0]}`);
    await seed.admin('post', '/admin/partners/northwind-markets/webhooks', { url: WEBHOOK, description: 'Production settlement feed of the Northwind trading desk' });

    const resolved = (slug: string, verdict: string) =>
      seed.resolvedMarket('northwind-markets', slug, {
        verdict,
        confidence: 'HIGH',
        reasoning: 'Three independent price feeds agree within 0.1% at the close.',
        proofs: [{ chain: 'base', tx_hash: HASH }, { chain: 'bsc', tx_hash: HASH }],
      });
    const dispute = async (marketId: number, name: string) =>
      seed.dispute(partnerKey, marketId, {
        submitter_id: `nw-user-${marketId}`,
        submitter_name: name,
        submitter_selection: 'NO',
        reason_text: 'The reference exchange had an outage from 23:58 UTC; the last valid print before the close was 99,870.',
        submitted_at: '2027-01-01T08:12:00Z',
      });
    disputes.closed = await dispute(await resolved('btc-above-100k-on-2026-12-31', 'YES'), 'Maria Gonzalez');
    await seed.admin('post', `/admin/disputes/${disputes.closed}/decision`, { type: 'override', reason_text: 'The exchange log confirms the outage.' });
    disputes.open = await dispute(await resolved('eth-etf-approved-by-the-sec-before-2026-06-30', 'YES'), 'Tom Becker');
    await dispute(await resolved('rain-in-paris-on-2026-12-01', 'YES'), 'Ana Lima');
    await resolved('us-cpi-above-3-percent-in-november-2026', 'NO');
    monitoring = (await seed.admin<{ id: number }>('post', '/admin/markets', { source: 'acme', slug: MONITORING_SLUG })).id;
  });

  afterAll(async () => {
    await harness?.close();
  });

  /** Each page as a reviewer reaches it, and what shows once it has loaded. */
  const pages: [name: string, open: (page: Page) => Promise<void>][] = [
    ['queue', (page) => visit(page, '#/queue', 'Dispute queue')],
    ['queue-closed', (page) => visit(page, '#/queue/closed', 'Dispute queue')],
    ['dispute-open', (page) => visit(page, `#/disputes/${disputes.open}`, `Dispute #${disputes.open}`)],
    ['dispute-closed', (page) => visit(page, `#/disputes/${disputes.closed}`, `Dispute #${disputes.closed}`)],
    ['markets', (page) => visit(page, '#/markets', 'Markets')],
    [
      'market',
      async (page) => {
        await visit(page, `#/markets/acme/${MONITORING_SLUG}`, `Market #${monitoring}`);
        await page.getByRole('button', { name: 'Add a proof' }).click();
        await page.getByLabel('Chain of proof 2').waitFor();
      },
    ],
    [
      'partners',
      async (page) => {
        await visit(page, '#/partners', 'Partners and keys');
        await page.getByRole('button', { name: 'Issue a key for acme' }).click();
        await page.getByRole('region', { name: 'New key of acme' }).waitFor();
      },
    ],
    [
      'partner-keys',
      async (page) => {
        await visit(page, '#/partners/northwind-markets/keys', 'Keys and webhooks of northwind-markets');
        await page.getByRole('button', { name: `Rotate secret of ${WEBHOOK}` }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
        await page.getByRole('region', { name: `New secret of the webhook to ${WEBHOOK}` }).waitFor();
      },
    ],
    [
      'redeliver-confirm',
      async (page) => {
        await visit(page, '#/partners', 'Partners and keys'); // the same hash again would not load the page again
        await visit(page, '#/partners/northwind-markets/keys', 'Keys and webhooks of northwind-markets');
        await page.getByRole('button', { name: `Redeliver to ${WEBHOOK}` }).click();
        await page.getByRole('dialog', { name: /^Send \d+ events again to / }).waitFor();
      },
    ],
    ['reviewers', (page) => visit(page, '#/reviewers', 'Reviewers')],
    ['audit', (page) => visit(page, '#/audit', 'Audit trail')],
    ['audit-found', (page) => visit(page, '#/audit?action=webhook.created&from=2020-01-01T00:00:00Z', 'Audit trail')],
  ];

  it('keeps every control inside its container and the screen, at phone and desktop widths, on every page', async () => {
    await harness.run('layout', async (page) => {
      await signIn(page, adminKey);
      const found: string[] = [];
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        for (const [name, open] of pages) {
          await open(page);
          await expect(page.locator('main tbody tr, main .facts').count()).resolves.toBeGreaterThan(0);
          found.push(...(await layoutProblems(page)).map((problem) => `${name} at ${width}: ${problem}`));
          found.push(...(await hostsBroken(page)).map((host) => `${name} at ${width}: the URL breaks inside ${host}`));
          if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
          await page.keyboard.press('Escape'); // a confirmation left open
        }
      }
      expect(found).toEqual([]);
    });
  });
});

/**
 * Opens `hash` and waits until its view has loaded: the page then focuses the view's heading.
 * The focus is taken off first, as the last view's heading may have the same name.
 */
async function visit(page: Page, hash: string, heading: string): Promise<void> {
  await page.evaluate((target) => {
    (document.activeElement as HTMLElement | null)?.blur();
    location.hash = target;
  }, hash);
  await page.waitForFunction((name) => document.activeElement?.tagName === 'H1' && document.activeElement.textContent?.startsWith(name), heading);
}

/** The hosts (with their ports) of webhook URLs on the page that are drawn on more than one line. */
function hostsBroken(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.url-host')].filter((host) => {
      const range = document.createRange();
      range.selectNodeContents(host);
      return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1;
    }).map((host) => host.textContent ?? ''),
  );
}
