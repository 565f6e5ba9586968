import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Response } from 'express';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Stricter than the API's helmet default (which allows inline styles and `https:` fonts): nothing inline, nothing from elsewhere, never framed. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The files `npm run build` bundles (build:back-office), by the name the page asks for. */
export const PAGE_FILES = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
} as const;

export type PageFile = keyof typeof PAGE_FILES;

/** Jest runs the sources as ES modules without __dirname: there, the working tree's dist/ (which the browser suites build first). */
export function bundleFolder(): string {
  return typeof __dirname === 'string' ? join(__dirname, 'assets') : join(process.cwd(), 'dist', 'back-office', 'assets');
}

/** The page's three files, read once at start and served from memory. */
@Injectable()
export class PageAssets implements OnModuleInit {
  private readonly logger = new Logger('BackOffice');
  private readonly files = new Map<PageFile, Buffer>();

  async onModuleInit(): Promise<void> {
    const folder = bundleFolder();
    try {
      for (const name of Object.keys(PAGE_FILES) as PageFile[]) this.files.set(name, await readFile(join(folder, name)));
    } catch {
      // The API works without the page (e.g. the sources run without a build): say so once.
      this.files.clear();
      this.logger.warn(`the back office page is not built (no bundle in ${folder}; npm run build makes it): /back-office answers 503`);
    }
  }

  send(res: Response, name: PageFile): void {
    const body = this.files.get(name);
    if (!body) return this.sendText(res, 503, 'The back office page is not built on this server: run npm run build.');
    this.withPageHeaders(res).status(200).type(PAGE_FILES[name]).send(body);
  }

  sendText(res: Response, status: number, text: string): void {
    this.withPageHeaders(res).status(status).type('text/plain; charset=utf-8').send(text);
  }

  /** Replaces the API's CSP (set by helmet for every path) with the page's own. */
  private withPageHeaders(res: Response): Response {
    return res.set({
      'Content-Security-Policy': PAGE_CSP,
      'X-Frame-Options': 'DENY',
      // No ETags in this service (create-app.ts): the small files are fetched again, never stale.
      'Cache-Control': 'no-cache',
    });
  }
}
