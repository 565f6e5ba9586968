import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { WebhookReceiver } from '../support/webhook-receiver';
import { BrowserHarness, signIn } from './support/browser';
import { Seed } from './support/seed';

const MASTER = 'browser-master-key-0123456789abcdef';
const RESOLUTION = { verdict: 'YES', confidence: 'HIGH', reasoning: 'Confirmed by the reference exchange.', proofs: [{ chain: 'base', tx_hash: '0xabc' }] };

/** Set to a folder to keep what the window shows as each notice opens. */
const SHOTS = process.env.BACK_OFFICE_SHOTS;
const shot = async (page: Page, name: string) => void (SHOTS && (await page.screenshot({ path: join(SHOTS, `${name}.png`) })));

/** Where `notice` is drawn: wholly inside the window, with room (not an empty region). */
const inView = (notice: Locator) =>
  notice.evaluate((element) => {
    const box = element.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight && box.left >= 0 && box.right <= window.innerWidth;
  });
const focused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

/** The element a notice follows (its action's button, or the cell it sits at the end of). */
const before = (notice: Locator) => notice.evaluate((element) => (element.previousElementSibling ?? element.parentElement)?.textContent?.trim().slice(0, 60));

/**
 * A notice opens beside the action that caused it, in view, and is announced (aria-live): a
 * failure takes the focus, a confirmation leaves it. Lists long enough that the action lies far
 * below the top of the page, at a phone's width and a laptop's.
 */
describe('the back office page: every notice opens in view, beside its action', () => {
  let harness: BrowserHarness;
  let receiver: WebhookReceiver;
  let adminKey: string;
  const disputes: number[] = [];

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    harness = await BrowserHarness.start({ ADMIN_MASTER_KEY: MASTER, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const seed = new Seed(harness.t, MASTER);
    adminKey = await seed.reviewer('Ada', 'admin');
    const partnerKey = await seed.partner('acme', 'Acme');
    for (let i = 0; i < 30; i++) await seed.admin('post', '/admin/partners/acme/keys');
    await seed.admin('post', '/admin/partners/acme/webhooks', { url: receiver.url('/acme') });
    for (let i = 0; i < 24; i++) await seed.admin('post', '/admin/markets', { source: 'acme', slug: `market-${i}` });
    for (const slug of ['decided-at-390', 'decided-at-1280']) {
      const market = await seed.resolvedMarket('acme', slug, RESOLUTION);
      disputes.push(await seed.dispute(partnerKey, market, { submitter_id: 'u1', submitter_name: 'Ann', submitter_selection: 'NO', reason_text: 'Wrong.' }));
    }
  });

  afterAll(async () => {
    await harness?.close();
    await receiver?.close();
  });

  const alertOf = (page: Page) => page.getByRole('alert');
  const statusOf = (page: Page) => page.getByRole('status').filter({ hasText: /./ });

  for (const [n, width] of [390, 1280].entries()) {
    const viewport = { width, height: width < 760 ? 844 : 860 };

    it(`at ${width} px: a failed "Create market" shows its alert after the button, in view, announced, with the focus`, async () => {
      await harness.run(`notice-error-${width}`, async (page) => {
        await signIn(page, adminKey);
        await page.goto('/back-office#/markets');
        const create = page.getByRole('form', { name: 'Create a market' });
        await create.getByLabel('Partner source').fill('no-such-partner');
        await create.getByLabel('Slug').fill('anything');
        await create.getByRole('button', { name: 'Create market' }).click();
        const alert = alertOf(page);
        await alert.getByText('There is no partner with that source.').waitFor();
        await expect(inView(alert)).resolves.toBe(true);
        await expect(focused(alert)).resolves.toBe(true);
        await expect(before(alert)).resolves.toBe('Create market');
        await expect(alert.getAttribute('aria-live')).resolves.toBe('assertive');
        await shot(page, `notice-error-${width}`);
      }, viewport);
    });

    it(`at ${width} px: Redeliver's and a decision's confirmations show beside them, in view, announced, the focus left alone`, async () => {
      await harness.run(`notice-confirmation-${width}`, async (page) => {
        await signIn(page, adminKey);
        await page.goto('/back-office#/partners/acme/keys');
        const row = page.getByRole('region', { name: 'Webhooks' }).locator('tbody tr').first();
        await row.getByLabel('After sequence').fill('0');
        await row.getByRole('button', { name: /^Redeliver to / }).click();
        await page.getByRole('dialog').getByRole('button', { name: /^Send \d+ events again$/ }).click();
        const status = statusOf(page);
        await status.getByText(/^\d+ events after sequence 0 queued again for /).waitFor();
        await expect(inView(status)).resolves.toBe(true);
        await expect(status.getAttribute('aria-live')).resolves.toBe('polite');
        await expect(status.evaluate((element) => element.closest('tr')?.contains(document.activeElement))).resolves.toBe(true);
        await shot(page, `notice-redeliver-${width}`);

        await page.goto(`/back-office#/disputes/${disputes[n]}`);
        await page.getByLabel(/Keep the oracle's verdict/).check();
        await page.getByLabel('Reason (partners read it)').fill('Checked.');
        await page.getByRole('button', { name: 'Decide…' }).click();
        await page.getByRole('dialog').getByRole('button', { name: /^Keep: / }).click();
        await status.getByText('Decision recorded: partners now settle on “YES”.').waitFor();
        await expect(inView(status)).resolves.toBe(true);
        await expect(before(status)).resolves.toBe('Decision');
        await shot(page, `notice-decision-${width}`);
      }, viewport);
    });
  }
});
