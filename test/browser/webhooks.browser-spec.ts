import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Locator, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { WebhookReceiver, type Received } from '../support/webhook-receiver';
import { BrowserHarness, openSection, signIn } from './support/browser';
import { Seed } from './support/seed';

const MASTER = 'browser-master-key-0123456789abcdef';
const HASH = '0x3b7e1f0c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f';
const RESOLUTION = { verdict: 'YES', confidence: 'HIGH', reasoning: 'Météo-France recorded 4 mm.', proofs: [{ chain: 'base', tx_hash: HASH }] };

/** Whether `secret` (whsec_…) made one of the request's signatures, as a partner checks it. */
function signedWith(request: Received, secret: string): boolean {
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  }
}

/** Polls `done` until it holds: a delivery's outcome is recorded after the endpoint has answered. */
async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const focused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

/** A partner's page, opened from the partners' list as an admin finds it. */
async function openPartner(page: Page, source: string): Promise<Locator> {
  await openSection(page, 'Partners and keys');
  await page.getByRole('link', { name: `All keys and webhooks of ${source}` }).click();
  await page.getByRole('heading', { level: 1, name: `Keys and webhooks of ${source}` }).waitFor();
  return page.getByRole('region', { name: 'Webhooks' });
}

describe("the back office page: a partner's webhooks", () => {
  let harness: BrowserHarness;
  let seed: Seed;
  let adminKey: string;
  let receiver: WebhookReceiver;
  let endpoint: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    endpoint = receiver.url('/hooks/acme');
    // The receiver listens on the loopback interface, which only this setting lets a webhook reach.
    harness = await BrowserHarness.start({ ADMIN_MASTER_KEY: MASTER, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    seed = new Seed(harness.t, MASTER);
    adminKey = await seed.reviewer('Ada', 'admin');
  });

  afterAll(async () => {
    await harness?.close();
    await receiver?.close();
  });

  it('registers a webhook (its secret shown once), shows its deliveries, rotates its secret, redelivers and deletes it', async () => {
    await seed.partner('acme', 'Acme Markets Ltd.');
    await harness.run('webhooks', async (page, watch) => {
      await signIn(page, adminKey);
      const webhooks = await openPartner(page, 'acme');
      await webhooks.getByText('No webhooks yet.').waitFor();

      const register = page.getByRole('form', { name: 'Register a webhook' });
      await register.getByLabel('URL').fill(endpoint);
      await register.getByLabel('Description (optional)').fill('Settlement feed');
      await register.getByRole('button', { name: 'Register webhook' }).click();
      const issued = page.getByRole('region', { name: `Secret of the webhook to ${endpoint}` });
      const secret = await issued.getByRole('textbox').inputValue();
      expect(secret).toMatch(/^whsec_/);
      await expect(focused(issued.getByRole('heading'))).resolves.toBe(true);
      await page.getByRole('status').getByText(`Webhook registered: acme's events go to ${endpoint}.`).waitFor();
      const listed = webhooks.locator('tbody tr').filter({ hasText: endpoint });
      await expect(listed.getByRole('cell').allTextContents()).resolves.toEqual([
        endpoint,
        'Settlement feed',
        expect.stringMatching(/ UTC$/),
        'never',
        '0',
        expect.stringContaining('Redeliver'),
      ]);

      // A market created and resolved: two events, each delivered to the endpoint, signed with the secret.
      await seed.resolvedMarket('acme', 'rain-in-paris-on-2026-12-01', RESOLUTION);
      const delivered = await receiver.waitFor(2);
      expect(delivered.map((request) => JSON.parse(request.body).type).sort()).toEqual(['market.created', 'market.resolved']);
      expect(delivered.every((request) => signedWith(request, secret))).toBe(true);
      const state = () => seed.admin<{ webhooks: { pending: number; last_delivery: { http_status: number | null } | null }[] }>('get', '/admin/partners/acme/webhooks');
      await until('the deliveries recorded', async () => {
        const [webhook] = (await state()).webhooks;
        return webhook.pending === 0 && webhook.last_delivery?.http_status === 200;
      });

      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Keys and webhooks of acme' }).waitFor();
      await expect(page.getByRole('region', { name: `Secret of the webhook to ${endpoint}` }).count()).resolves.toBe(0);
      await expect(listed.locator('td[data-label="Last delivery"]').textContent()).resolves.toMatch(/ UTC · HTTP 200$/);
      await expect(listed.locator('td[data-label="Pending"]').textContent()).resolves.toBe('0');

      await listed.getByRole('button', { name: `Rotate secret of ${endpoint}` }).click();
      await page.getByRole('dialog', { name: `Rotate the secret of the webhook to ${endpoint}?` }).getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = page.getByRole('region', { name: `New secret of the webhook to ${endpoint}` });
      const newSecret = await rotated.getByRole('textbox').inputValue();
      expect(newSecret).toMatch(/^whsec_/);
      expect(newSecret).not.toBe(secret);
      await expect(focused(rotated.getByRole('heading'))).resolves.toBe(true);

      // Redeliver starts after the last sequence delivered, and says how many it would send before it does.
      const sequences = delivered.map((request) => JSON.parse(request.body).data.sequence as number).sort((a, b) => a - b);
      const after = listed.getByLabel('After sequence');
      await expect(after.inputValue()).resolves.toBe(String(sequences[1]));
      await listed.getByText(`Last delivered: ${sequences[1]}`).waitFor();
      await listed.getByRole('button', { name: `Redeliver to ${endpoint}` }).click();
      await page.getByRole('status').getByText(`No event after sequence ${sequences[1]} to send again to ${endpoint}.`).waitFor();
      await expect(page.getByRole('dialog').count()).resolves.toBe(0);

      await after.fill('0');
      await listed.getByRole('button', { name: `Redeliver to ${endpoint}` }).click();
      const confirm = page.getByRole('dialog', { name: `Send 2 events again to ${endpoint}?` });
      await confirm.getByText("acme's events after sequence 0, oldest first. The endpoint gets them again with the same webhook-id.").waitFor();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await listed.getByRole('button', { name: `Redeliver to ${endpoint}` }).click();
      await confirm.getByRole('button', { name: 'Send 2 events again' }).click();
      await page.getByRole('status').getByText(`2 events after sequence 0 queued again for ${endpoint}.`).waitFor();
      const queued = 2;
      await expect(focused(listed.getByRole('button', { name: `Redeliver to ${endpoint}` }))).resolves.toBe(true);
      // Redelivered while the old secret is still valid: signed with both.
      const again = (await receiver.waitFor(2 + queued)).slice(2);
      expect(again.every((request) => signedWith(request, newSecret) && signedWith(request, secret))).toBe(true);

      await listed.getByRole('button', { name: `Delete the webhook to ${endpoint}` }).click();
      await page.getByRole('dialog', { name: `Delete the webhook to ${endpoint}?` }).getByRole('button', { name: 'Delete webhook' }).click();
      await page.getByRole('status').getByText(`The webhook to ${endpoint} is deleted.`).waitFor();
      await webhooks.getByText('No webhooks yet.').waitFor();
      await expect(focused(webhooks.getByRole('heading', { name: 'Webhooks' }))).resolves.toBe(true);
      await expect(state()).resolves.toEqual({ webhooks: [], private_urls_allowed: true });

      expect(watch.urls.filter((url) => url.includes(adminKey))).toEqual([]);
      expect(watch.errors).toEqual([]);
    });
  });

  it('shows why the service refuses a URL, and a description holding HTML as text', async () => {
    await seed.partner('globex', 'Globex');
    const hostile = '<img src=x onerror="window.__pwned=1">';
    await harness.run('webhooks-refused', async (page, watch) => {
      await signIn(page, adminKey);
      await openPartner(page, 'globex');
      const register = page.getByRole('form', { name: 'Register a webhook' });
      // This server takes loopback URLs (WEBHOOK_ALLOW_PRIVATE_URLS), and the form says so.
      await register.getByText('An https:// or http:// address; this server also takes private and loopback addresses (development only).', { exact: false }).waitFor();
      await register.getByLabel('URL').fill('ftp://127.0.0.1/hooks');
      await register.getByRole('button', { name: 'Register webhook' }).click();
      await page.getByRole('alert').getByText('Some of what was entered is not valid.').waitFor();
      await page.getByRole('alert').getByText('What to fix: url must use https:// or http://.', { exact: true }).waitFor();

      await register.getByLabel('URL').fill(receiver.url('/hooks/globex'));
      await register.getByLabel('Description (optional)').fill(hostile);
      await register.getByRole('button', { name: 'Register webhook' }).click();
      await page.getByRole('region', { name: 'Webhooks' }).getByRole('cell', { name: hostile, exact: true }).waitFor();
      await expect(page.evaluate(() => (window as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
      await expect(page.locator('main img').count()).resolves.toBe(0);
      expect(watch.errors).toEqual([]);
    });
  });
});
