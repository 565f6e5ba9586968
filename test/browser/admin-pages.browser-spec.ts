import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BrowserHarness, openSection, signIn } from './support/browser';
import { Seed } from './support/seed';

const MASTER = 'browser-master-key-0123456789abcdef';

/** A partner's own page, the audit trail found and read, a market's own page on a phone (WEBHOOK_ALLOW_PRIVATE_URLS unset). */
describe('the back office page: a partner\'s page, the audit trail, a market\'s page', () => {
  let harness: BrowserHarness;
  let seed: Seed;
  let adminKey: string;

  beforeAll(async () => {
    harness = await BrowserHarness.start({ ADMIN_MASTER_KEY: MASTER });
    seed = new Seed(harness.t, MASTER);
    adminKey = await seed.reviewer('Ada', 'admin');
    await seed.partner('acme', 'Acme');
  });

  afterAll(async () => {
    await harness?.close();
  });

  it("issues a key on the partner's own page, heads the Revoke buttons' column Action, and words the webhook form for https only", async () => {
    await harness.run('partner-page', async (page) => {
      await signIn(page, adminKey);
      await page.goto('/back-office#/partners/acme/keys');
      await page.getByRole('heading', { level: 1, name: 'Keys and webhooks of acme' }).waitFor();
      await page.getByRole('button', { name: 'Issue a key for acme' }).click();
      const issued = page.getByRole('region', { name: 'New key of acme' });
      const key = await issued.getByRole('textbox').inputValue();
      expect(key).toMatch(/^sok_/);
      await issued.getByRole('status').getByText(/^Key \d+ issued for acme\.$/).waitFor();
      await expect(page.locator('main table').first().locator('tbody tr').count()).resolves.toBe(2);
      await expect(page.locator('main table').first().getByRole('columnheader').allTextContents()).resolves.toEqual(['Key', 'Status', 'Created', 'Last used', 'Action']);
      const probe = await harness.t.http.post('/oracle/markets/dispute/submit').set('x-api-key', key).send({});
      expect(probe.body.code).toBe(4000); // the key works: the body is what is missing

      const register = page.getByRole('form', { name: 'Register a webhook' });
      await register.getByText('An https:// address that resolves to public addresses only; each event is POSTed to it, signed').waitFor();

      await openSection(page, 'Reviewers');
      await expect(page.getByRole('columnheader').allTextContents()).resolves.toEqual(['Name', 'Role', 'Created', 'Key', 'Action']);
    });
  });

  it('shows each detail of an audit event as a row, and finds events by who, action, target and time, kept in the URL', async () => {
    const otto = await seed.reviewer('Otto', 'admin');
    await harness.t.http.post('/admin/markets').set('authorization', `Bearer ${otto}`).send({ source: 'acme', slug: 'otto-market' });
    await harness.run('audit-found', async (page) => {
      await signIn(page, adminKey);
      await openSection(page, 'Audit trail');
      const created = page.locator('tbody tr').filter({ hasText: 'market.created' });
      // In the order PostgreSQL keeps a jsonb object's members.
      await expect(created.locator('dl.kv dt').allTextContents()).resolves.toEqual(['slug', 'source', 'actor id']);
      await expect(created.locator('dl.kv dd').allTextContents()).resolves.toEqual(['otto-market', 'acme', expect.stringMatching(/^\d+$/)]);

      // The page found (and the filters kept in the URL): then the rows are the ones found.
      const found = async (hash: string) => {
        await page.getByRole('button', { name: 'Find' }).click();
        await page.waitForFunction((wanted) => location.hash === wanted, hash);
      };
      await page.getByLabel('Who').fill('Otto');
      await found('#/audit?actor=Otto');
      await expect(page.locator('tbody tr').count()).resolves.toBe(1);

      await page.getByLabel('Who').fill('');
      await page.getByLabel('Action').selectOption('reviewer.created');
      await found('#/audit?action=reviewer.created');
      await expect(page.locator('tbody tr td:nth-child(3)').allTextContents()).resolves.toEqual(['reviewer.created', 'reviewer.created']);

      await page.getByLabel('Action').selectOption('');
      await page.getByLabel('Target').fill('partner:acme');
      await page.getByLabel('From (UTC)').fill('2020-01-01T00:00');
      await page.getByLabel('To (UTC)').fill('2099-01-01T00:00');
      await found('#/audit?target=partner%3Aacme&from=2020-01-01T00%3A00%3A00Z&to=2099-01-01T00%3A00%3A00Z');
      await expect(page.locator('tbody tr td:nth-child(3)').allTextContents()).resolves.toEqual(['key.issued', 'partner.created']);
      await page.reload();
      await page.getByRole('cell', { name: 'partner.created' }).waitFor();
      await expect(page.getByLabel('Target').inputValue()).resolves.toBe('partner:acme');
      await expect(page.getByLabel('From (UTC)').inputValue()).resolves.toBe('2020-01-01T00:00');

      await page.getByLabel('To (UTC)').fill('2020-01-02T00:00');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByText('Nothing recorded matches.').waitFor();
    });
  });

  it("opens a market's page at the top on a phone, from the bottom of a long list", async () => {
    for (let i = 0; i < 20; i++) await seed.admin('post', '/admin/markets', { source: 'acme', slug: `phone-market-${i}` });
    await harness.run(
      'market-on-a-phone',
      async (page) => {
        await signIn(page, adminKey);
        await openSection(page, 'Markets');
        const last = page.locator('tbody tr').last().getByRole('link');
        await last.scrollIntoViewIfNeeded();
        expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);
        const name = (await last.getAttribute('aria-label'))!;
        await last.click();
        const heading = page.getByRole('heading', { level: 1, name: new RegExp(`^${name} `) });
        await heading.waitFor();
        const box = (await heading.boundingBox())!;
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.y + box.height).toBeLessThan(844 / 2);
      },
      { width: 390, height: 844 },
    );
  });
});
