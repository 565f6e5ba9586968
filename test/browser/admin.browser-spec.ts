import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BrowserHarness, openSection, signIn } from './support/browser';
import { Seed } from './support/seed';

const MASTER = 'browser-master-key-0123456789abcdef';
const HASH_BASE = '0x3b7e1f0c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f';
const HASH_BSC = '0x9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c';

describe('the back office page: an admin at work', () => {
  let harness: BrowserHarness;
  let seed: Seed;
  let adminKey: string;

  beforeAll(async () => {
    harness = await BrowserHarness.start({ ADMIN_MASTER_KEY: MASTER });
    seed = new Seed(harness.t, MASTER);
    adminKey = await seed.reviewer('Ada', 'admin');
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('registers a partner (its key shown once, with a copy button), creates a market, finds it and resolves it with proofs', async () => {
    await harness.run('admin-market', async (page, watch) => {
      await signIn(page, adminKey);
      await expect(page.locator('header .who').textContent()).resolves.toBe('Signed in as Ada · admin');

      await openSection(page, 'Partners and keys');
      await page.getByLabel('Source').fill('acme');
      await page.getByLabel('Name').fill('Acme Markets Ltd.');
      await page.getByRole('button', { name: 'Register partner' }).click();
      const issued = page.getByRole('region', { name: 'First key of acme' });
      const partnerKey = await issued.getByRole('textbox').inputValue();
      expect(partnerKey).toMatch(/^sok_/);
      await issued.getByRole('button', { name: 'Copy key' }).click();
      await issued.getByText(/^(Copied\.|Select the key and copy it with Ctrl\+C\.)$/).waitFor();
      const probe = await harness.t.http.post('/oracle/markets/dispute/submit').set('x-api-key', partnerKey).send({});
      expect(probe.body.code).toBe(4000); // the key works: the body is what is missing

      await openSection(page, 'Markets');
      const create = page.getByRole('form', { name: 'Create a market' });
      await create.getByLabel('Partner source').fill('acme');
      await create.getByLabel('Slug').fill(' /rain-in-paris-on-2026-12-01/ ');
      await create.getByRole('button', { name: 'Create market' }).click();
      const status = page.getByRole('status').getByText(/^Market #\d+ created; it is monitoring until it is resolved\. Open market #\d+$/);
      const id = Number(/#(\d+)/.exec((await status.textContent())!)![1]);
      // The market's own page, at a URL of its own.
      await status.getByRole('link', { name: `Open market #${id}` }).click();
      await page.getByRole('heading', { level: 1, name: `Market #${id} monitoring` }).waitFor();
      expect(new URL(page.url()).hash).toBe('#/markets/acme/rain-in-paris-on-2026-12-01');
      const record = page.getByRole('region', { name: 'Settlement record (what partners see)' });
      await record.getByText('monitoring', { exact: true }).waitFor();

      const resolve = page.getByRole('form', { name: 'Resolve this market' });
      await resolve.getByLabel('Verdict').fill('YES');
      await resolve.getByLabel('Confidence').selectOption('VERY_HIGH');
      await resolve.getByLabel('Reasoning').fill('Météo-France recorded 4 mm at Paris-Montsouris on 2026-12-01.');
      await resolve.getByLabel('Transaction hash of proof 1').fill(HASH_BASE);
      await resolve.getByRole('button', { name: 'Add a proof' }).click();
      await resolve.getByLabel('Chain of proof 2').selectOption('bsc');
      await resolve.getByLabel('Transaction hash of proof 2').fill(HASH_BSC);
      await resolve.getByRole('button', { name: 'Resolve…' }).click();
      const dialog = page.getByRole('dialog', { name: `Resolve market #${id}?` });
      await dialog.getByText('Partners will read the verdict “YES” (VERY_HIGH) for “rain-in-paris-on-2026-12-01” at once.').waitFor();
      await dialog.getByRole('button', { name: 'Resolve market' }).click();
      await page.getByRole('status').getByText(`Market #${id} resolved: “YES”.`).waitFor();
      await record.getByText('resolved', { exact: true }).waitFor();
      await expect(record.getByRole('link', { name: HASH_BSC }).getAttribute('href')).resolves.toBe(`https://bscscan.com/tx/${HASH_BSC}`);
      await expect(page.getByRole('form', { name: 'Resolve this market' }).count()).resolves.toBe(0);

      await page.getByRole('link', { name: '← Markets' }).click();
      await page.getByRole('heading', { level: 1, name: 'Markets' }).waitFor();
      await page.getByLabel('Source', { exact: true }).fill('acme');
      await page.getByLabel('Status').selectOption('resolved');
      await page.getByLabel('Slug contains').fill('PARIS');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByRole('link', { name: `Market #${id}` }).waitFor();
      await expect(page.locator('tbody tr').count()).resolves.toBe(1);
      // The search is in the URL: a market's page leads back to it, and a reload keeps it.
      expect(new URL(page.url()).hash).toBe('#/markets?source=acme&status=resolved&q=PARIS');
      await page.getByRole('link', { name: `Market #${id}` }).click();
      await page.getByRole('link', { name: '← Markets' }).click();
      await page.getByRole('link', { name: `Market #${id}` }).waitFor();
      await page.reload();
      await page.getByRole('link', { name: `Market #${id}` }).waitFor();
      await expect(page.getByLabel('Slug contains').inputValue()).resolves.toBe('PARIS');
      await page.getByLabel('Status').selectOption('monitoring');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByText('No market matches.').waitFor();

      const published = await seed.publicRecord('acme', 'rain-in-paris-on-2026-12-01');
      expect(published).toMatchObject({
        id,
        status: 'resolved',
        verdict: 'YES',
        confidence: 'VERY_HIGH',
        proofs: [
          { chain: 'base', tx_hash: HASH_BASE },
          { chain: 'bsc', tx_hash: HASH_BSC },
        ],
        disputes: null,
      });
      expect(watch.urls.filter((url) => url.includes(adminKey))).toEqual([]);
      expect(watch.errors).toEqual([]);
    });
  });

  it('issues and revokes partner keys, creates and revokes reviewers, and pages through the audit trail', async () => {
    for (let i = 0; i < 26; i++) await seed.reviewer(`batch-${i}`, 'reviewer');
    await harness.run('admin-accounts', async (page) => {
      await signIn(page, adminKey);
      await openSection(page, 'Partners and keys');
      // A double click issues one key: the second click comes while the first is at work.
      await page.getByRole('button', { name: 'Issue a key for acme' }).dblclick();
      const issued = page.getByRole('region', { name: 'New key of acme' });
      expect(await issued.getByRole('textbox').inputValue()).toMatch(/^sok_/);
      await expect(page.getByRole('button', { name: /^Revoke sok_/ }).count()).resolves.toBe(2);

      await page.getByRole('button', { name: /^Revoke sok_/ }).first().click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
      await page.getByRole('status').getByText(/^Key sok_.+ of acme is revoked\.$/).waitFor();
      await expect(page.getByRole('button', { name: /^Revoke sok_/ }).count()).resolves.toBe(1);
      await expect(page.getByText('revoked', { exact: true }).count()).resolves.toBe(1);

      await openSection(page, 'Reviewers');
      await page.getByLabel('Name').fill('Rita');
      await page.getByRole('button', { name: 'Create reviewer' }).click();
      const ritaKey = await page.getByRole('region', { name: 'Key of Rita' }).getByRole('textbox').inputValue();
      expect(ritaKey).toMatch(/^soa_/);
      await page.getByRole('button', { name: 'Revoke Rita' }).click();
      await page.getByRole('dialog', { name: 'Revoke Rita?' }).getByRole('button', { name: 'Revoke' }).click();
      await page.getByRole('status').getByText('Rita is revoked.').waitFor();
      const rejected = await harness.t.http.get('/admin/disputes').set('authorization', `Bearer ${ritaKey}`);
      expect(rejected.body.code).toBe(4012);

      await openSection(page, 'Audit trail');
      const first = page.locator('tbody tr').first();
      await expect(first.textContent()).resolves.toContain('reviewer.revoked');
      await expect(page.locator('tbody tr').count()).resolves.toBe(25);
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Page 2').waitFor();
      await expect(page.locator('tbody tr').last().textContent()).resolves.toContain('reviewer.created');
      await page.getByRole('button', { name: 'Previous page' }).click();
      await page.getByText('Page 1').waitFor();
      await expect(page.locator('tbody tr').first().textContent()).resolves.toContain('reviewer.revoked');
    });
  });

  it("offers no Revoke button for the signed-in account itself (the API refuses it), only for others'", async () => {
    await seed.reviewer('Otto', 'reviewer');
    await harness.run('own-account', async (page) => {
      await signIn(page, adminKey);
      await openSection(page, 'Reviewers');
      const own = page.locator('tbody tr').filter({ has: page.getByRole('cell', { name: 'Ada', exact: true }) });
      await own.getByText('Your account (another admin can revoke it)').waitFor();
      await expect(own.getByRole('button').count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Revoke Otto' }).waitFor();

      // The master key is no account: every account can be revoked with it.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, MASTER);
      await openSection(page, 'Reviewers');
      await page.getByRole('button', { name: 'Revoke Ada' }).waitFor();
    });
  });

  it('pages through the markets the last Find found, whatever is typed since', async () => {
    await seed.partner('globex', 'Globex');
    await seed.partner('zeta', 'Zeta');
    for (let i = 0; i < 21; i++) await seed.admin('post', '/admin/markets', { source: 'globex', slug: `globex-market-${i}` });
    await seed.admin('post', '/admin/markets', { source: 'zeta', slug: 'zeta-market' }); // the newest: on page 1 until found away
    await harness.run('markets-pages', async (page) => {
      await signIn(page, adminKey);
      await openSection(page, 'Markets');
      await page.getByText('zeta-market').waitFor();
      await page.getByLabel('Source', { exact: true }).fill('globex');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByText('zeta-market').waitFor({ state: 'detached' });
      await expect(page.locator('tbody tr').count()).resolves.toBe(20);

      await page.getByLabel('Source', { exact: true }).fill('typed-not-found');
      // A double click moves one page.
      await page.getByRole('button', { name: 'Next page' }).dblclick();
      await page.getByText('Page 2').waitFor();
      await expect(page.locator('tbody tr').allTextContents()).resolves.toEqual([expect.stringContaining('globex-market-0')]);
      await page.getByRole('button', { name: 'Previous page' }).click();
      await page.getByText('Page 1').waitFor();
      await expect(page.locator('tbody tr').first().textContent()).resolves.toContain('globex-market-20');
    });
  });

  it('pages through partners (and finds them), a partner\'s keys past the 20 it lists, and reviewers', async () => {
    for (let i = 0; i < 50; i++) await seed.partner(`bulk-${String(i).padStart(2, '0')}`, `Bulk Partner ${i}`);
    await seed.partner('keyring', 'Keyring Ltd.');
    for (let i = 1; i < 25; i++) await seed.admin('post', '/admin/partners/keyring/keys');
    for (let i = 0; i < 25; i++) await seed.reviewer(`paged-${i}`, 'reviewer');
    await harness.run('account-pages', async (page) => {
      await signIn(page, adminKey);
      await openSection(page, 'Partners and keys');
      const sources = () => page.locator('tbody tr td:first-child').allTextContents();
      await expect(page.locator('tbody tr').count()).resolves.toBe(50);
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Page 2').waitFor();
      await expect(sources()).resolves.toEqual(expect.arrayContaining(['bulk-49', 'keyring']));

      await page.getByLabel('Search').fill('BULK partner 4');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByText('Page 2').waitFor({ state: 'detached' });
      await expect(sources()).resolves.toEqual(['bulk-04', ...Array.from({ length: 10 }, (_, n) => `bulk-${40 + n}`)]);
      await page.getByLabel('Search').fill('nobody-at-all');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByText('No partner matches.').waitFor();

      await page.getByLabel('Search').fill('keyring');
      await page.getByRole('button', { name: 'Find' }).click();
      const keyring = page.locator('tbody tr').filter({ hasText: 'Keyring Ltd.' });
      await keyring.waitFor();
      await expect(keyring.getByRole('button', { name: /^Revoke sok_/ }).count()).resolves.toBe(20);
      await keyring.getByRole('link', { name: 'All keys and webhooks of keyring' }).click();
      await page.getByRole('heading', { name: 'Keys and webhooks of keyring' }).waitFor();
      await expect(page.locator('tbody tr').count()).resolves.toBe(25);
      await page.getByRole('button', { name: /^Revoke sok_/ }).last().click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
      await page.getByRole('status').getByText(/^Key sok_.+ of keyring is revoked\.$/).waitFor();
      await expect(page.locator('tbody tr').last().textContent()).resolves.toContain('revoked');
      await expect(page.getByRole('button', { name: /^Revoke sok_/ }).count()).resolves.toBe(24);

      await openSection(page, 'Reviewers');
      await expect(page.locator('tbody tr').count()).resolves.toBe(50);
      await expect(page.locator('tbody tr').first().textContent()).resolves.toContain('Ada');
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Page 2').waitFor();
      await expect(page.locator('tbody tr').last().textContent()).resolves.toContain('paged-24');
    });
  });

  it('shows a reviewer neither the admin sections nor the admin forms', async () => {
    const reviewerKey = await seed.reviewer('Rob', 'reviewer');
    await harness.run('reviewer-sections', async (page) => {
      await signIn(page, reviewerKey);
      await expect(page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents()).resolves.toEqual(['Disputes', 'Markets']);
      await openSection(page, 'Markets');
      await page.getByRole('button', { name: 'Find' }).waitFor();
      await page.getByRole('link', { name: /^Market #\d+$/ }).first().click();
      await page.getByRole('region', { name: 'Settlement record (what partners see)' }).waitFor();
      await expect(page.getByRole('form', { name: 'Create a market' }).count()).resolves.toBe(0);
      await expect(page.getByRole('form', { name: 'Resolve this market' }).count()).resolves.toBe(0);
    });
  });
});
