import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { BrowserHarness, openSection, signIn } from './support/browser';
import { Seed } from './support/seed';

const MASTER = 'browser-master-key-0123456789abcdef';
const HASH_BASE = '0x8f2a559490c1c3a6a1b7b7d3a1e3f1c2b4d5e6f708192a3b4c5d6e7f8091a2b3';
const HASH_BSC = '0x1c9e77d2a0b4f38e6a5d9c0b1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f';

describe('the back office page: a reviewer at work', () => {
  let harness: BrowserHarness;
  let seed: Seed;
  let reviewerKey: string;
  let partnerKey: string;
  const disputes: number[] = [];

  const market = (slug: string, verdict: string, reasoning: string) =>
    seed.resolvedMarket('northwind', slug, {
      verdict,
      confidence: 'HIGH',
      reasoning,
      proofs: [
        { chain: 'base', tx_hash: HASH_BASE },
        { chain: 'bsc', tx_hash: HASH_BSC },
      ],
      resolved_at: '2026-12-31T23:59:59Z',
    });

  beforeAll(async () => {
    harness = await BrowserHarness.start({ ADMIN_MASTER_KEY: MASTER });
    seed = new Seed(harness.t, MASTER);
    partnerKey = await seed.partner('northwind', 'Northwind Markets');
    reviewerKey = await seed.reviewer('Quinn', 'reviewer');
    const btc = await market(
      'btc-above-100k-on-2026-12-31',
      'YES',
      'BTC/USD closed at 101,250 on the reference exchange at 23:59 UTC on 2026-12-31; three independent price feeds agree within 0.1%.',
    );
    const eth = await market('eth-etf-approved-by-2026-06-30', 'NO', 'No approval order was published by the deadline.');
    const rain = await market('rain-in-paris-on-2026-12-01', 'YES', 'Météo-France recorded 4 mm at Paris-Montsouris.');
    disputes.push(
      await seed.dispute(partnerKey, btc, {
        submitter_id: 'nw-user-48213',
        submitter_name: 'Maria Gonzalez',
        submitter_selection: 'NO',
        reason_text: 'The reference exchange had an outage from 23:58 UTC; the last valid print before the close was 99,870.',
        submitted_at: '2027-01-01T08:12:00Z',
      }),
      await seed.dispute(partnerKey, eth, {
        submitter_id: 'nw-user-90017',
        submitter_name: 'Tom Becker',
        submitter_selection: 'YES',
        reason_text: 'The approval was announced on 2026-06-30 in a press release.',
      }),
      await seed.dispute(partnerKey, rain, {
        submitter_id: 'nw-user-11',
        submitter_name: 'Ana Lima',
        submitter_selection: 'NO',
        reason_text: 'The station was under maintenance that day.',
      }),
    );
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('signs in, opens the oldest dispute, overrides it, sees the public record show the decision, signs out', async () => {
    await harness.run('review-flow', async (page, watch) => {
      await signIn(page, reviewerKey);
      await page.getByRole('heading', { name: 'Dispute queue' }).waitFor();
      await expect(page.getByRole('link', { name: 'Open (3)' }).getAttribute('aria-current')).resolves.toBe('page');
      await page.getByRole('link', { name: 'Closed (0)' }).waitFor();
      const firstRow = page.locator('tbody tr').first();
      await expect(firstRow.locator('td').first().textContent()).resolves.toBe(`#${disputes[0]}`);

      await firstRow.getByRole('link').click();
      await page.getByRole('heading', { name: `Dispute #${disputes[0]}` }).waitFor();
      const dispute = page.getByRole('region', { name: 'The dispute' });
      await expect(dispute.textContent()).resolves.toContain('Maria Gonzalez (id nw-user-48213)');
      await expect(dispute.textContent()).resolves.toContain('the last valid print before the close was 99,870.');
      const record = page.getByRole('region', { name: 'Market record (what partners see)' });
      await record.getByText('three independent price feeds agree').waitFor();
      await expect(record.getByRole('link', { name: HASH_BASE }).getAttribute('href')).resolves.toBe(`https://basescan.org/tx/${HASH_BASE}`);
      await expect(record.getByRole('link', { name: HASH_BSC }).getAttribute('href')).resolves.toBe(`https://bscscan.com/tx/${HASH_BSC}`);
      await expect(record.getByRole('link', { name: HASH_BSC }).getAttribute('rel')).resolves.toBe('noopener noreferrer');
      if (process.env.BACK_OFFICE_SCREENSHOT) await page.screenshot({ path: process.env.BACK_OFFICE_SCREENSHOT, fullPage: true });

      await page.getByLabel(/Override with the submitter's selection/).check();
      await page.getByLabel('Reason (partners read it)').fill('The exchange log confirms the outage; the last valid print was below 100k.');
      await page.getByRole('button', { name: 'Decide…' }).click();
      const dialog = page.getByRole('dialog', { name: `Override dispute #${disputes[0]}?` });
      await expect(dialog.textContent()).resolves.toContain(
        'Partners will settle “btc-above-100k-on-2026-12-31” on “NO”, the submitter\'s selection, instead of the oracle\'s “YES”.',
      );
      await dialog.getByRole('button', { name: 'Override: partners settle on “NO”' }).click();

      await page.getByRole('status').getByText('Decision recorded: partners now settle on “NO”.').waitFor();
      const decision = page.getByRole('region', { name: 'Decision' });
      await expect(decision.textContent()).resolves.toMatch(/Partners settle onNO.*Decided byQuinn/);
      await record.getByText('decided override, partners settle on “NO”').waitFor();
      const published = await seed.publicRecord('northwind', 'btc-above-100k-on-2026-12-31');
      expect(published).toMatchObject({ status: 'closed', verdict: 'YES' });
      expect(published.disputes[0].decision).toMatchObject({ type: 'override', partner_final_verdict: 'NO' });

      await page.getByRole('link', { name: '← Dispute queue' }).click();
      await page.getByRole('link', { name: 'Open (2)' }).waitFor();
      await page.getByRole('link', { name: 'Closed (1)' }).click();
      await page.getByRole('cell', { name: 'override → NO' }).waitFor();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You are signed out.').waitFor();
      await expect(page.getByLabel('Key').inputValue()).resolves.toBe('');
      await expect(page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).resolves.toEqual([0, 0, '']);
      expect(watch.urls.filter((url) => url.includes(reviewerKey))).toEqual([]);
      expect(watch.errors).toEqual([]);
    });
  });

  it('shows the decision of whoever decided first (4092) instead of recording a second one', async () => {
    await harness.run('decided-meanwhile', async (page) => {
      await signIn(page, reviewerKey);
      await page.goto(`/back-office#/disputes/${disputes[1]}`);
      await page.getByLabel(/Override with the submitter's selection/).check();
      await page.getByLabel('Reason (partners read it)').fill('The press release settles it.');
      await seed.admin('post', `/admin/disputes/${disputes[1]}/decision`, { type: 'keep', reason_text: 'No order was published.' });

      await page.getByRole('button', { name: 'Decide…' }).click();
      await page.getByRole('button', { name: 'Override: partners settle on “YES”' }).click();
      await page
        .getByRole('alert')
        .getByText('Someone else decided this dispute meanwhile. master chose to keep: partners settle on “NO”. Your decision was not recorded.')
        .waitFor();
      await expect(page.getByRole('region', { name: 'Decision' }).textContent()).resolves.toContain('No order was published.');
      // The alert, beside the decision shown in place of the form, has the focus.
      await expect(page.evaluate(() => document.activeElement?.getAttribute('role'))).resolves.toBe('alert');
      await expect(page.evaluate(() => document.activeElement?.previousElementSibling?.id)).resolves.toBe('decision-heading');
      await expect(page.getByRole('button', { name: 'Decide…' }).count()).resolves.toBe(0);
    });
  });

  it('can be worked with the keyboard alone', async () => {
    await harness.run('keyboard', async (page) => {
      await signIn(page, reviewerKey);
      await page.getByRole('link', { name: `#${disputes[2]}` }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: `Dispute #${disputes[2]}` }).waitFor();
      await expect(focusedText(page)).resolves.toBe(`Dispute #${disputes[2]} open`);

      await page.getByLabel(/Keep the oracle's verdict/).focus();
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab'); // out of the radio group, whose checked choice is its one stop
      await expect(page.evaluate(() => document.activeElement?.tagName)).resolves.toBe('TEXTAREA');
      await page.keyboard.type('The station log shows rain before maintenance.');
      await page.keyboard.press('Tab');
      await expect(focusedText(page)).resolves.toBe('Decide…');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      await expect(focusedText(page)).resolves.toBe('Cancel');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await expect(focusedText(page)).resolves.toBe('Decide…'); // back where it was
      await page.keyboard.press('Enter');
      await dialog.waitFor();
      await page.keyboard.press('Tab');
      await expect(focusedText(page)).resolves.toBe('Keep: partners settle on “YES”');
      await page.keyboard.press('Enter');
      await page.getByRole('status').getByText('Decision recorded: partners now settle on “YES”.').waitFor();
      await page.getByRole('region', { name: 'Decision' }).getByText('The station log shows rain before maintenance.').waitFor();
      // The form the focus was in is gone: the focus is on the decision in its place, not lost.
      await expect(page.evaluate(() => document.activeElement?.closest('[aria-label="Decision"]')?.tagName)).resolves.toBe('SECTION');
      await expect(focusedText(page)).resolves.toBe('Decision');
      await page.keyboard.press('Tab'); // and the keyboard goes on from there, to the record beside it
      await expect(focusedText(page)).resolves.toBe(HASH_BASE);
    });
  });

  it('is readable on a narrow screen: nothing wider than the screen, the panels one above the other', async () => {
    await harness.run(
      'narrow',
      async (page) => {
        await signIn(page, reviewerKey);
        await page.goto(`/back-office#/disputes/${disputes[0]}`);
        const record = page.getByRole('region', { name: 'Market record (what partners see)' });
        await record.waitFor();
        await expect(page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).resolves.toBe(true);
        const disputeBox = await page.getByRole('region', { name: 'The dispute' }).boundingBox();
        const recordBox = await record.boundingBox();
        expect(recordBox!.y).toBeGreaterThan(disputeBox!.y + disputeBox!.height);
        await page.goto('/back-office#/queue/closed');
        await page.getByRole('cell', { name: 'override → NO' }).waitFor();
        await expect(page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).resolves.toBe(true);
      },
      { width: 390, height: 844 },
    );
  });

  it("keeps a partner's long unbroken texts inside the screen, the confirmation's final verdict included", async () => {
    const verdict = 'Y'.repeat(200);
    const selection = 'N'.repeat(200);
    const slug = `s${'l'.repeat(250)}`;
    const marketId = await seed.resolvedMarket('northwind', slug, { verdict, confidence: 'HIGH', reasoning: 'r'.repeat(3000), proofs: [{ chain: 'base', tx_hash: HASH_BASE }] });
    const id = await seed.dispute(partnerKey, marketId, {
      submitter_id: 'i'.repeat(128),
      submitter_name: 'n'.repeat(200),
      submitter_selection: selection,
      reason_text: 'x'.repeat(4000),
    });
    await harness.run(
      'long-texts',
      async (page) => {
        const fitsScreen = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
        await signIn(page, reviewerKey);
        await page.goto(`/back-office#/disputes/${id}`);
        await page.getByRole('region', { name: 'Market record (what partners see)' }).waitFor();
        await expect(fitsScreen()).resolves.toBe(true);
        await page.getByLabel(/Override with the submitter's selection/).check();
        await page.getByLabel('Reason (partners read it)').fill('Checked.');
        await page.getByRole('button', { name: 'Decide…' }).click();
        const confirm = page.getByRole('dialog').getByRole('button', { name: `Override: partners settle on “${selection}”` });
        const box = (await confirm.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(390);
        await expect(fitsScreen()).resolves.toBe(true);
        await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      },
      { width: 390, height: 844 },
    );
  });

  /** One more open dispute, for a test that must find its decision form. */
  const openDispute = async (slug: string) =>
    seed.dispute(partnerKey, await market(slug, 'YES', 'Confirmed.'), {
      submitter_id: 'nw-user-5',
      submitter_name: 'Lee',
      submitter_selection: 'NO',
      reason_text: 'The station was under maintenance that day.',
    });

  it('asks for a reason before the confirmation when only spaces were written', async () => {
    const id = await openDispute('blank-reason');
    await harness.run('blank-reason', async (page) => {
      await signIn(page, reviewerKey);
      await page.goto(`/back-office#/disputes/${id}`);
      await page.getByLabel(/Keep the oracle's verdict/).check();
      await page.getByLabel('Reason (partners read it)').fill('   ');
      await page.getByRole('button', { name: 'Decide…' }).click();
      await page.getByRole('alert').getByText('Write the reason for the decision: partners read it.').waitFor();
      await expect(page.getByRole('dialog').count()).resolves.toBe(0);
      await expect(page.evaluate(() => document.activeElement?.tagName)).resolves.toBe('TEXTAREA');
    });
  });

  it("shows a dispute and lets it be decided when its market's public record cannot be read", async () => {
    const id = await openDispute('record-unreadable');
    await harness.run('record-unreadable', async (page) => {
      await signIn(page, reviewerKey);
      const limited = { code: 4290, msg: 'too many requests', detail: 'rate limit exceeded' };
      await page.route('**/oracle/markets/public?**', (route) => route.fulfill({ json: limited, headers: { 'retry-after': '7' } }));
      await page.goto(`/back-office#/disputes/${id}`);
      const record = page.getByRole('region', { name: 'Market record (what partners see)' });
      await record.getByText("The market's public record could not be loaded; reload the page to try again.").waitFor();
      await record.getByText('Too many requests. Wait 7 seconds and try again.').waitFor();
      await page.getByRole('region', { name: 'The dispute' }).getByText('The station was under maintenance that day.').waitFor();
      await page.getByRole('button', { name: 'Decide…' }).waitFor();
    });
  });

  it('says that a dispute id no dispute can have does not exist', async () => {
    await harness.run('impossible-id', async (page) => {
      await signIn(page, reviewerKey);
      for (const id of ['9999999999999999999', '0']) {
        await page.goto(`/back-office#/disputes/${id}`);
        await page.getByRole('alert').getByText('That dispute does not exist.').waitFor();
        await expect(page.getByRole('alert').textContent()).resolves.not.toContain('What to fix');
      }
    });
  });

  it('says what went wrong in sentences: a wrong key, a key revoked mid-session, a view the role cannot open', async () => {
    await harness.run('failures', async (page) => {
      await page.goto('/back-office');
      await page.getByLabel('Key').fill('soa_not-a-key');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText('Your key is not valid or has been revoked. Sign in again with a valid key.').waitFor();
      await expect(page.locator('body').textContent()).resolves.not.toMatch(/"code"|4012|invalid admin credentials/);

      const doomed = await seed.reviewer('Temp', 'reviewer');
      await signIn(page, doomed);
      await page.goto('/back-office#/partners');
      await page.getByRole('heading', { name: 'Not here' }).waitFor();
      const { reviewers } = await seed.admin<{ reviewers: { id: number; name: string }[] }>('get', '/admin/reviewers');
      await seed.admin('delete', `/admin/reviewers/${reviewers.find((reviewer) => reviewer.name === 'Temp')!.id}`);
      await page.getByRole('link', { name: 'Markets' }).click();
      await page.getByText('Your key is not valid or has been revoked. Sign in again with a valid key.').waitFor();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await expect(page.evaluate(() => sessionStorage.length)).resolves.toBe(0);
    });
  });

  it('keeps the session when a reload cannot check the key (database down), and resumes it on a retry', async () => {
    await harness.run('not-checked', async (page) => {
      await signIn(page, reviewerKey);
      // The service's answer while its database is unreachable.
      const down = { code: 5030, msg: 'service unavailable', detail: 'the database did not answer' };
      await page.route('**/admin/me', (route) => route.fulfill({ json: down, headers: { 'x-request-id': 'req-down-1' } }));
      await page.reload();
      const alert = page.getByRole('alert');
      await alert.getByText('Your key could not be checked.').waitFor();
      await alert.getByText('The service cannot reach its database right now. Try again in a moment.').waitFor();
      await alert.getByText('Reference for the operators: req-down-1').waitFor();
      await expect(page.evaluate(() => sessionStorage.length)).resolves.toBe(1);
      await expect(focusedText(page)).resolves.toBe('Try again');

      await page.unroute('**/admin/me');
      await page.getByRole('button', { name: 'Try again' }).click();
      await expect(page.locator('header .who').textContent()).resolves.toBe('Signed in as Quinn · reviewer');
      await page.getByRole('heading', { name: /dispute/i }).first().waitFor();
    });
  });
});

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim());
