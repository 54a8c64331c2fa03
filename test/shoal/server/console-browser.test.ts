/**
 * shoal's console in a real browser (Debian's Chromium via playwright-core) against a real
 * `shoal serve` from dist/ (run `npm run build` first) on the demo's embedded stores: two
 * analysts run the same governed query and see different rows, an admin refreshes an MV and
 * watches the panel show the new snapshot, a long query is cancelled (and the server records it
 * cancelled), and a hostile value in a result row stays text.
 *
 * `SHOAL_CONSOLE_SCREENSHOTS=1` also writes docs/images/console-results.png and console-mv.png.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG } from '../../../src/shoal/demo/demo-config.js';
import { chromiumOrSkip, launchBrowser } from '../../support/browser.js';
import { distBin, startServer, type ServerProcess } from '../../support/processes.js';
import { freePort } from '../../support/services.js';
import { makeShoalFleetConfig, type Principal } from '../../support/shoal-fleet-fixture.js';

const chromium = chromiumOrSkip();

/** Polls `ok` until it holds (a wait, not a timing assertion); fails after 20 s saying what it waited for. */
async function until(what: string, ok: () => Promise<boolean>, seen?: () => string): Promise<void> {
  for (const end = Date.now() + 20_000; !(await ok()); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${seen ? `: ${seen()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const SCREENSHOTS = process.env.SHOAL_CONSOLE_SCREENSHOTS ? resolve(process.cwd(), 'docs/images') : undefined;

const MV = 'sales.segment_counts';
/** The demo catalog plus one MV over the (ungoverned) segments CSV. */
const CONFIG = DEMO_CONFIG.replace(
  'roles:\n',
  `  - source_id: __derived__
    domain_id: sales
    table: segment_counts
    materialize: true
    mv_refresh_interval: 3600
    view_sql: 'SELECT segment, count(*) AS n FROM sales.customer_segments GROUP BY segment'
    columns:
      - {name: segment, data_type: varchar, visible_to: [admin]}
      - {name: n, data_type: bigint, visible_to: [admin]}
roles:\n`,
);
const HOSTILE = '<img src=x onerror=alert(1)><script>alert(2)</script>';
const PASSWORD = 'correct horse battery staple';
const ORDERS = 'SELECT id, region, amount FROM sales.orders ORDER BY id';
/**
 * Long enough to be running when it is cancelled: a cross product of 60^6 x 12 rows. It joins two
 * sources so DuckDB runs it (interruptible); a single-SQLite-source query goes to SQLite directly,
 * whose synchronous driver holds the event loop until it finishes.
 */
const ENDLESS = 'SELECT max(a.id + b.id + c.id + d.id + e.id + f.id + s.customer_id) AS n FROM sales.orders a, sales.orders b, sales.orders c, sales.orders d, sales.orders e, sales.orders f, sales.customer_segments s';

describe.skipIf(chromium.skip)('the shoal console in a browser', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-console-'));
  let server: ServerProcess;
  let browser: Browser;
  let who: Record<string, Principal>;
  /** Script dialogs opened by any page: a hostile value that ran would open one. */
  const dialogs: string[] = [];

  beforeAll(async () => {
    const fleet = makeShoalFleetConfig(dir);
    who = Object.fromEntries(fleet.principals.map((p) => [p.name, p]));
    if (!DEMO_CONFIG.includes('roles:\n') || CONFIG === DEMO_CONFIG) throw new Error('the demo config no longer has its roles where expected');
    writeFileSync(fleet.config, CONFIG);
    // a value a page would run if it rendered rows as HTML, and one a spreadsheet would run
    appendFileSync(join(dir, 'segments.csv'), `900,${HOSTILE}\n901,=1+2\n`);
    // a registry user (Authorization: Basic) with two roles: analyst (US rows) by default, and admin
    execFileSync(process.execPath, [distBin('shoal'), 'user', 'add', '--config', fleet.config, 'lead', '--role', 'analyst', '--role', 'admin', '--var', 'provisa.user_region=us'], {
      env: { ...process.env, SHOAL_USER_PASSWORD: PASSWORD },
      stdio: 'ignore',
    });
    const port = await freePort();
    // no MV loop: the only refresh is the one the test asks for
    [server, browser] = await Promise.all([
      startServer(['serve', '--config', fleet.config, '--port', String(port)], { cwd: dir, port, env: { SHOAL_MV_TICK_MS: '0' } }),
      launchBrowser(chromium.executablePath!),
    ]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signedIn(name: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${server.url}/`);
    await page.fill('#token', who[name]!.token);
    await page.click('#sign-in-button');
    await page.waitForSelector('#console:not([hidden])');
    return page;
  }

  async function run(page: Page, sql: string): Promise<string> {
    await page.fill('#sql', sql);
    await page.press('#sql', 'Control+Enter');
    await page.waitForSelector('#status:is([data-state=done], [data-state=error])');
    return (await page.getAttribute('#status', 'data-state'))!;
  }

  const column = (page: Page, n: number): Promise<string[]> => page.locator(`#results tbody tr td:nth-child(${n})`).allTextContents();

  it('two analysts run the same governed query and see their own region only; the catalog is theirs', async () => {
    const seen: Record<string, string[]> = {};
    for (const name of ['analyst-eu', 'analyst-us']) {
      const page = await signedIn(name);
      expect(await page.locator('#role option').allTextContents()).toEqual(['analyst']);
      // the catalog as the analyst sees it: no MV (visible to admin only), placed_on hidden
      await page.waitForSelector('#catalog-tables details');
      const tables = await page.locator('#catalog-tables summary').allTextContents();
      expect(tables).toContain('sales.orders');
      expect(tables).not.toContain(MV);
      expect(await page.locator('#catalog-tables').textContent()).not.toContain('placed_on');
      expect(await run(page, ORDERS)).toBe('done');
      expect(await page.locator('#results thead th').allTextContents()).toEqual(['id', 'region', 'amount']);
      const regions = await column(page, 2);
      expect(regions.length).toBeGreaterThan(0);
      expect(new Set(regions)).toEqual(new Set([name.slice('analyst-'.length)]));
      expect(await page.textContent('#status')).toMatch(new RegExp(`^${regions.length} row\\(s\\) in `));
      seen[name] = await column(page, 1);
      // the admin panels say why they are empty
      await page.click('.tab[data-tab=mv]');
      expect(await page.textContent('#mv-note')).toContain('needs a role with the admin capability; you act as analyst');
      expect(await page.isVisible('#mv-list')).toBe(false);
      if (name === 'analyst-eu' && SCREENSHOTS) {
        await page.click('.tab[data-tab=query]');
        await page.click('#catalog-tables summary:text-is("sales.customers")');
        expect(await run(page, 'SELECT c.id, c.name, c.email, c.region, s.segment FROM sales.customers c JOIN sales.customer_segments s ON s.customer_id = c.id ORDER BY c.id')).toBe('done');
        await page.screenshot({ path: join(SCREENSHOTS, 'console-results.png') });
      }
      await page.close();
    }
    expect(seen['analyst-eu']!.filter((id) => seen['analyst-us']!.includes(id))).toEqual([]);
  });

  it('a registry user signs in with a password and chooses among its roles: the admin panels follow the role', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    await page.goto(`${server.url}/`);
    await page.fill('#username', 'lead');
    await page.fill('#password', 'wrong');
    await page.click('#sign-in-button');
    await until('the refusal', async () => ((await page.textContent('#sign-in-error')) ?? '') !== '');
    expect(await page.textContent('#sign-in-error')).toMatch(/^AUTH_INVALID: /);
    await page.fill('#username', 'lead');
    await page.fill('#password', PASSWORD);
    await page.click('#sign-in-button');
    await page.waitForSelector('#console:not([hidden])');
    expect(await page.textContent('#who')).toBe('user:lead');
    expect(await page.locator('#role option').allTextContents()).toEqual(['admin', 'analyst']);
    expect(await page.inputValue('#role')).toBe('analyst');
    expect(await run(page, ORDERS)).toBe('done');
    expect(new Set(await column(page, 2))).toEqual(new Set(['us']));
    await page.click('.tab[data-tab=mv]');
    expect(await page.textContent('#mv-note')).toContain('you act as analyst');
    await page.selectOption('#role', 'admin');
    await page.locator(`#mv-list tr[data-mv="${MV}"]`).waitFor();
    await page.click('.tab[data-tab=query]');
    expect(await run(page, ORDERS)).toBe('done');
    expect((await column(page, 2)).filter((r) => r !== 'us').length).toBeGreaterThan(0);
    // the role survives a reload (sessionStorage); signing out forgets the credentials
    await page.reload();
    await page.waitForSelector('#console:not([hidden])');
    expect(await page.inputValue('#role')).toBe('admin');
    // the role changed three times before any catalog answer arrives: the panel shows the last
    // role's catalog once, not a mix of the three
    let catalogs = 0;
    page.on('response', (r) => void (new URL(r.url()).pathname === '/data/catalog' && catalogs++));
    await page.evaluate(`(() => { const s = document.getElementById('role'); for (const r of ['analyst', 'admin', 'analyst']) { s.value = r; s.dispatchEvent(new Event('change')); } })()`);
    let note = '';
    await until('the catalog as analyst', async () => {
      note = (await page.textContent('#catalog-note')) ?? '';
      return catalogs >= 3 && note.startsWith('as analyst: ');
    }, () => `${catalogs} answer(s), the panel says ${JSON.stringify(note)}`);
    const tables = await page.locator('#catalog-tables summary').allTextContents();
    expect(tables).toContain('sales.orders');
    expect(tables).not.toContain(MV);
    expect(tables.length).toBe(new Set(tables).size);
    expect(await page.textContent('#catalog-note')).toBe(`as analyst: ${tables.length} table(s)`);
    await page.click('#sign-out');
    await page.reload();
    await page.waitForSelector('#sign-in:not([hidden])');
    await page.close();
  });

  it('an error shows its code, message and hint', async () => {
    const page = await signedIn('analyst-eu');
    expect(await run(page, 'SELECT nope FROM sales.orders')).toBe('error');
    expect(await page.textContent('#error-code')).toBe('SQL_UNKNOWN_COLUMN');
    expect(await page.textContent('#error-message')).toContain('nope');
    await page.close();
  });

  it('a hostile value in a row stays text, and the CSV export guards against formulas', async () => {
    const page = await signedIn('analyst-eu');
    expect(await run(page, 'SELECT customer_id, segment FROM sales.customer_segments WHERE customer_id >= 900 ORDER BY customer_id')).toBe('done');
    expect(await column(page, 2)).toEqual([HOSTILE, '=1+2']);
    expect(await page.locator('#results img, #results script').count()).toBe(0);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
    const csv = readFileSync((await download.path())!, 'utf8');
    // a BOM first: Excel on Windows reads the file as UTF-8 only with one
    expect(csv).toBe(`\uFEFFcustomer_id,segment\r\n900,${HOSTILE}\r\n901,'=1+2\r\n`);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it("signing out, or credentials that stop working, clear the previous user's results; a network failure keeps the credentials", async () => {
    const page = await signedIn('admin');
    const empty = async (): Promise<void> => {
      expect(await page.locator('#results thead th, #results tbody tr').count()).toBe(0);
      expect(await page.isEnabled('#csv')).toBe(false);
      expect(await page.textContent('#status')).toBe('');
    };
    expect(await run(page, ORDERS)).toBe('done');
    expect(await page.isEnabled('#csv')).toBe(true);
    await page.click('#sign-out');
    await empty();
    await page.fill('#token', who['analyst-eu']!.token);
    await page.click('#sign-in-button');
    await page.waitForSelector('#console:not([hidden])');
    await empty();
    expect(await page.inputValue('#sql')).not.toBe(ORDERS);
    // the server cannot be reached on a reload: the sign-in form says so, and keeps the credentials
    await page.route('**/auth/whoami', (route) => route.abort());
    await page.reload();
    await until('the network error', async () => ((await page.textContent('#sign-in-error')) ?? '') !== '');
    expect(await page.textContent('#sign-in-error')).toMatch(/^NETWORK: /);
    await page.unroute('**/auth/whoami');
    await page.reload();
    await page.waitForSelector('#console:not([hidden])');
    // a result whose last line is cut off is an error, not a shorter result
    await page.route('**/data/sql', async (route) => {
      const r = await route.fetch();
      const body = await r.body();
      await route.fulfill({ response: r, body: body.subarray(0, body.length - 4) });
    });
    expect(await run(page, ORDERS)).toBe('error');
    expect(await page.textContent('#error-code')).toBe('RESULT_CUT_OFF');
    expect(await page.textContent('#error-message')).toContain('the answer was cut off');
    await page.unroute('**/data/sql');
    // credentials that stop working: a 401 from POST /data/sql returns to the sign-in form, emptied
    expect(await run(page, ORDERS)).toBe('done');
    await page.evaluate(`sessionStorage.setItem('shoal.console.auth', 'Bearer shoal_pat_revoked')`);
    await page.click('#run');
    await page.waitForSelector('#sign-in:not([hidden])');
    expect(await page.textContent('#sign-in-error')).toMatch(/^AUTH_/);
    await empty();
    await page.close();
  });

  it('an admin refreshes an MV and watches the panel show the new snapshot and its history', async () => {
    const page = await signedIn('admin');
    await page.click('.tab[data-tab=mv]');
    const row = page.locator(`#mv-list tr[data-mv="${MV}"]`);
    await row.waitFor();
    const before = await row.locator('td.snapshot').textContent();
    await page.check('#mv-force');
    await row.locator('button.refresh').click();
    // the panel polls while the refresh runs; done when the row shows another snapshot and the button is back
    await until('the panel to show a new snapshot', async () => {
      const shown = await row.locator('td.snapshot').textContent();
      return shown !== '' && shown !== before && (await row.locator('button.refresh').isEnabled());
    });
    const snapshot = await row.locator('td.snapshot').textContent();
    expect(await page.textContent('#mv-note')).toContain(`${MV}: refreshed`);
    expect(await row.locator('td.status').textContent()).toBe('fresh');
    expect(await row.locator('td.rows').textContent()).toMatch(/^[1-9]\d*$/);
    // the history's newest entry is this refresh, with the snapshot the row shows
    const newest = page.locator('#mv-log tbody tr').first();
    expect(await newest.locator('td').nth(1).textContent()).toBe('refreshed');
    expect(await newest.locator('td').nth(5).textContent()).toBe(snapshot);
    // the server agrees
    const r = await fetch(`${server.url}/admin/mv/${MV}`, { headers: { authorization: `Bearer ${who.admin!.token}` } });
    expect(((await r.json()) as { snapshotId: string }).snapshotId).toBe(snapshot);
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'console-mv.png') });
    await page.click('.tab[data-tab=cache]');
    await until('the cache panel', async () => (await page.textContent('#cache-summary')) !== '');
    expect(await page.textContent('#cache-summary')).toMatch(/^(Hot tables are off|hot tables: backend)/);
    await page.close();
  });

  it('a big result streams into the grid: the first 10,000 rows shown, every row counted, the export refused past 100,000', async () => {
    const page = await signedIn('admin');
    expect(await run(page, 'SELECT a.id AS a, b.id AS b, c.id AS c FROM sales.orders a, sales.orders b, sales.orders c')).toBe('done');
    expect(await page.textContent('#status')).toMatch(/^216000 row\(s\) in .*the grid shows the first 10000; too many to export here/);
    expect(await page.locator('#results tbody tr').count()).toBe(10_000);
    expect(await page.isEnabled('#csv')).toBe(false);
    await page.close();
  });

  it('cancel stops a running query: the page says cancelled and the server records the query cancelled', async () => {
    const page = await signedIn('admin');
    await page.fill('#sql', ENDLESS);
    await page.click('#run');
    await page.waitForSelector('#status[data-state=running]');
    await page.click('#cancel');
    await page.waitForSelector('#status[data-state=cancelled]');
    expect(await page.isEnabled('#run')).toBe(true);
    // the server saw the connection close and stopped the query: its audit record says cancelled
    const headers = { authorization: `Bearer ${who.admin!.token}` };
    let records: { path: string; outcome: string }[] = [];
    await until('the audit record of the cancelled query', async () => {
      const r = await fetch(`${server.url}/admin/audit?limit=20`, { headers });
      records = ((await r.json()) as { records: typeof records }).records;
      return records.some((x) => x.path === '/data/sql' && x.outcome !== 'ok');
    }, () => JSON.stringify(records));
    const cancelled = records.filter((x) => x.path === '/data/sql' && x.outcome !== 'ok');
    expect(cancelled.map((x) => x.outcome)).toEqual(['cancelled']);
    expect(cancelled).toHaveLength(1);
    // and the console runs the next query
    expect(await run(page, ORDERS)).toBe('done');
    await page.close();
  });
});
