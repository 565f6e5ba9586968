import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PAGE_CSP } from '../../src/back-office/page-assets';
import { BrowserHarness, signIn } from './support/browser';
import { Seed } from './support/seed';

const MASTER = 'browser-master-key-0123456789abcdef';

describe('the back office page: hostile text, its headers, its CSP', () => {
  let harness: BrowserHarness;
  let seed: Seed;
  let reviewerKey: string;
  let partnerKey: string;

  beforeAll(async () => {
    harness = await BrowserHarness.start({ ADMIN_MASTER_KEY: MASTER });
    seed = new Seed(harness.t, MASTER);
    partnerKey = await seed.partner('northwind', 'Northwind Markets');
    reviewerKey = await seed.reviewer('Quinn', 'reviewer');
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('renders hostile text in slugs, names and reasons as text, and runs none of it', async () => {
    const slug = '<img src=x onerror="window.__pwned=1">';
    const hash = '"><script>window.__pwned=5</script>';
    const id = await seed.resolvedMarket('northwind', slug, {
      verdict: '<b>YES</b>',
      confidence: 'LOW',
      reasoning: '<script>window.__pwned=2</script>',
      proofs: [{ chain: 'base', tx_hash: hash }],
    });
    const disputeId = await seed.dispute(partnerKey, id, {
      submitter_id: '<i>id</i>',
      submitter_name: '<svg onload="window.__pwned=3">',
      submitter_selection: '<u>NO</u>',
      reason_text: '<img src=x onerror="window.__pwned=4">',
    });
    await harness.run('hostile-text', async (page, watch) => {
      await signIn(page, reviewerKey);
      await page.getByRole('cell', { name: slug }).waitFor();
      await page.getByRole('link', { name: `#${disputeId}` }).click();
      await page.getByRole('region', { name: 'Market record (what partners see)' }).getByText('<script>window.__pwned=2</script>').waitFor();
      for (const text of ['<svg onload="window.__pwned=3"> (id <i>id</i>)', '<img src=x onerror="window.__pwned=4">', '<u>NO</u>']) {
        await page.getByRole('region', { name: 'The dispute' }).getByText(text, { exact: true }).first().waitFor();
      }
      await expect(page.getByRole('link', { name: hash }).getAttribute('href')).resolves.toBe(`https://basescan.org/tx/${encodeURIComponent(hash)}`);

      await page.getByLabel(/Keep the oracle's verdict/).check();
      await page.getByLabel('Reason (partners read it)').fill('<script>window.__pwned=6</script>');
      await page.getByRole('button', { name: 'Decide…' }).click();
      await page.getByRole('dialog').getByText(`Partners will settle “${slug}” on “<b>YES</b>”, the oracle's verdict, as before.`).waitFor();
      await page.getByRole('button', { name: 'Keep: partners settle on “<b>YES</b>”' }).click();
      await page.getByRole('region', { name: 'Decision' }).getByText('<script>window.__pwned=6</script>').waitFor();

      await page.getByRole('link', { name: 'Markets' }).click();
      await page.getByLabel('Slug contains').fill('<IMG');
      await page.getByRole('button', { name: 'Find' }).click();
      // Its own page, at a URL that carries the slug encoded.
      await page.getByRole('link', { name: `Market #${id}` }).click();
      await page.getByRole('region', { name: 'Settlement record (what partners see)' }).getByText(slug, { exact: true }).waitFor();
      await page.reload();
      await page.getByRole('region', { name: 'Settlement record (what partners see)' }).getByText(slug, { exact: true }).waitFor();

      await expect(page.evaluate(() => (window as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
      await expect(page.locator('main img, main svg, main script, main b, main i, main u').count()).resolves.toBe(0);
      expect(watch.errors).toEqual([]);
    });
  });

  it('serves the page outside the envelope, with its own strict CSP, through the request pipeline', async () => {
    const page = await harness.t.http.get('/back-office');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-request-id']).toEqual(expect.any(String));
    expect(page.text).toContain('<script src="/back-office/app.js" defer></script>');
    const script = await harness.t.http.get('/back-office/app.js');
    expect([script.status, script.headers['content-type'], script.headers['content-security-policy']]).toEqual([200, 'text/javascript; charset=utf-8', PAGE_CSP]);
    const styles = await harness.t.http.get('/back-office/app.css');
    expect([styles.status, styles.headers['content-type']]).toEqual([200, 'text/css; charset=utf-8']);
    const missing = await harness.t.http.get('/back-office/app.js.map');
    expect([missing.status, missing.headers['content-type'], missing.text]).toEqual([404, 'text/plain; charset=utf-8', 'Not found.']);
    expect(await harness.t.metrics()).toMatch(/oracle_http_requests_total\{method="GET",route="\/back-office",code="200"\} \d+/);

    await harness.run('csp', async (browserPage) => {
      await browserPage.goto('/back-office');
      const ran = await browserPage.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'window.__inline = 1';
        document.body.append(script);
        return (window as { __inline?: number }).__inline;
      });
      expect(ran).toBeUndefined();
    });
  });

  it('serves the API docs unframeable, with a policy of their own, as a reference that never takes a key', async () => {
    for (const path of ['/docs', '/docs-json']) {
      const answer = await harness.t.http.get(path);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
      expect([answer.headers['x-frame-options'], answer.headers['x-content-type-options']]).toEqual(['DENY', 'nosniff']);
    }
    await harness.run('docs', async (page, watch) => {
      await page.goto('/docs');
      await page.getByText('Settlement oracle API').first().waitFor();
      await page.getByText('/oracle/markets/public').first().click();
      await page.getByText('Parameters').first().waitFor();
      await expect(page.getByRole('button', { name: /try it out/i }).count()).resolves.toBe(0);
      await expect(page.locator('.auth-wrapper').isVisible()).resolves.toBe(false);
      await expect(page.getByRole('button', { name: /authorize/i }).isVisible()).resolves.toBe(false);
      expect(watch.errors).toEqual([]);
    });
  });
});
