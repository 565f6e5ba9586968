import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../support/test-app';

export const ARTIFACTS = join(process.cwd(), 'test', 'browser', 'artifacts');

/** Debian's chromium (no browser build can be downloaded here); CHROMIUM_PATH names another. */
const EXECUTABLE = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** What a page did that a test must see: its requests, and anything it logged as an error. */
export interface PageWatch {
  urls: string[];
  errors: string[];
}

/**
 * The app, booted in-process as the e2e suites boot it and listening on an ephemeral port on
 * the loopback interface, and a headless Chromium (a fresh profile per launch) to drive it.
 */
export class BrowserHarness {
  private constructor(
    readonly t: TestApp,
    readonly baseUrl: string,
    private readonly browser: Browser,
  ) {}

  static async start(env: Record<string, string>): Promise<BrowserHarness> {
    const t = await startTestApp(env);
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const browser = await chromium.launch({ executablePath: EXECUTABLE, headless: true, args: FLAGS });
    return new BrowserHarness(t, `http://127.0.0.1:${port}`, browser);
  }

  /**
   * Runs `steps` in a new browser context (its own sessionStorage), on a laptop-sized screen
   * unless told otherwise. When a step fails, the page as it was is saved as a PNG under
   * test/browser/artifacts/ and its path printed.
   */
  async run(name: string, steps: (page: Page, watch: PageWatch) => Promise<void>, viewport = { width: 1280, height: 860 }): Promise<void> {
    const context = await this.browser.newContext({ viewport, baseURL: this.baseUrl });
    const page = await context.newPage();
    const watch: PageWatch = { urls: [], errors: [] };
    page.on('request', (request) => watch.urls.push(request.url()));
    page.on('pageerror', (error) => watch.errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') watch.errors.push(message.text());
    });
    try {
      await steps(page, watch);
    } catch (error) {
      await mkdir(ARTIFACTS, { recursive: true });
      const path = join(ARTIFACTS, `${name}-${Date.now()}.png`);
      await page.screenshot({ path, fullPage: true }).catch(() => undefined);
      process.stderr.write(`\nbrowser test "${name}" failed; the page as it was: ${path}\n`);
      throw error;
    } finally {
      await context.close();
    }
  }

  async close(): Promise<void> {
    await this.browser.close();
    await this.t.close();
  }
}

/** Signs in on the page with `key`, as a person would: type it, press Enter. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.goto('/back-office');
  await page.getByLabel('Key').fill(key);
  await page.getByLabel('Key').press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * Opens a section from the navigation and waits for its heading: until the section has loaded,
 * the previous one stays on screen, and reading a table or filling a "Name" field there would
 * read or fill the previous section's.
 */
export async function openSection(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}
