/**
 * Headless Chromium for the console's tests: Debian's browser (playwright's own download cannot work
 * here), a page that collects the console's script errors, and screenshots in test-output/screenshots/.
 */
import type { Test } from 'tap';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(__dirname, '..', '..', '..', 'test-output', 'screenshots');
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The test's skip option: skipped, saying why, where Chromium is not installed. */
export const needsChromium = {
  skip: existsSync(CHROMIUM) ? false : `no ${CHROMIUM} (apt-get install chromium)`,
};

export interface ConsolePage {
  readonly browser: Browser;
  readonly page: Page;
  /** Script errors and error messages of the pages under `origin`, but for the refusals `expected` matches. */
  readonly problems: string[];
}

/** A browser closed at the test's end, and one page in it. */
export async function openConsolePage(
  t: Test,
  origin: string,
  expected = /401 \(Unauthorized\)/,
  viewport = { width: 1280, height: 800 },
): Promise<ConsolePage> {
  await mkdir(SHOTS, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 30_000 });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport, acceptDownloads: true });
  // Each wait is for something the page does (a row, a dialog); on a loaded machine it can take seconds.
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // Only the console's own: an identity provider's development pages load fonts from the internet.
  page.on('console', (m) => {
    const ours = page.url().startsWith(origin);
    if (ours && m.type() === 'error' && !expected.test(m.text())) problems.push(m.text());
  });
  return { browser, page, problems };
}

export const shot = (page: Page, name: string): Promise<Buffer> =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
