/**
 * The console's pages in headless Chromium, timed from navigation until what an operator waits for is
 * drawn. Only the selectors below are relied on: the console's markup changes under other hands.
 */
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** console/src/api.ts keeps the admin token under this sessionStorage name. */
const TOKEN_KEY = 'gateway-admin-token';
const TIMEOUT_MS = 30_000;
const KEY_ROWS = 'table.keys tbody tr[data-key]';
const USAGE_ROWS = 'table.usage tbody tr';

export type Period = 'hour' | 'day';

export class ConsoleBrowser {
  private constructor(
    private readonly browser: Browser,
    private readonly adminUrl: string,
    private readonly adminToken: string,
  ) {}

  static async launch(adminUrl: string, adminToken: string): Promise<ConsoleBrowser> {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: TIMEOUT_MS });
    return new ConsoleBrowser(browser, adminUrl, adminToken);
  }

  /** ms from `goto('/')`, signed in, until the first 50 key rows are in the table. */
  async keysPage(): Promise<number> {
    return this.timed('/', async (page) => {
      await page.locator(KEY_ROWS).nth(49).waitFor({ timeout: TIMEOUT_MS });
    });
  }

  /**
   * ms from `goto('/#usage')` until the last 30 days per `period` are charted and tabled. The period is
   * chosen before the range, so the only 30-day query made is the measured one. Waits go through
   * locators: the page's CSP forbids the eval that waitForFunction needs.
   */
  async usagePage(period: Period): Promise<number> {
    return this.timed('/#usage', async (page) => {
      await page.locator('select[name=range]').waitFor({ timeout: TIMEOUT_MS });
      await page.locator('select[name=period]').selectOption(period);
      const answer = page.waitForResponse((r) => isMonthSummary(r.url(), period), { timeout: TIMEOUT_MS });
      await page.locator('select[name=range]').selectOption('30');
      const url = new URL((await answer).url());
      // The page marks the query its table and chart show: the wait ends when it shows this one.
      await page
        .locator(`section[data-loaded="${url.pathname}${url.search}"] ${USAGE_ROWS}`)
        .first()
        .waitFor({ timeout: TIMEOUT_MS });
      await page.locator('.chart canvas').first().waitFor({ timeout: TIMEOUT_MS });
    });
  }

  close(): Promise<void> {
    return this.browser.close();
  }

  /** A fresh tab with the token already saved (as after signing in), timed from navigation to `done`. */
  private async timed(path: string, done: (page: Page) => Promise<void>): Promise<number> {
    const context = await this.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.addInitScript(
        `sessionStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(this.adminToken)})`,
      );
      const started = performance.now();
      await page.goto(this.adminUrl + path);
      await done(page);
      return performance.now() - started;
    } finally {
      await context.close();
    }
  }
}

/** Whether `url` is a usage summary per `period` over at least 29 days (the default range is one). */
function isMonthSummary(url: string, period: Period): boolean {
  const u = new URL(url);
  const params = u.searchParams;
  const span = Date.parse(params.get('to') ?? '') - Date.parse(params.get('from') ?? '');
  return (
    u.pathname === '/admin/usage/summary' &&
    (params.get('group_by') ?? '').split(',').includes(period) &&
    span >= 29 * 86_400_000
  );
}
