/**
 * Sample data for `shoal demo`: a SQLite shop database, a CSV of customer segments, and a tik
 * store of support tickets written by the real `tik` command. Deterministic: the same seed gives
 * the same bytes (tik events included, via a fixed writer clock), so the demo's answers are stable.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const REGIONS = ['eu', 'us', 'apac'] as const;
const FIRST = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj'];
const SEGMENTS = ['gold', 'silver', 'bronze'] as const;

/** A small linear congruential generator: reproducible sample data without Math.random. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The support process the demo's tik store follows. */
export const SUPPORT_PROCESS = `;; A support request: received → triaged → resolved.
{:process/id :support
 :process/version 1
 :process/guard-vocab 1
 :lint {:runbooks :off}
 :process/roles {:agent {:members ["demo-agent"]}}
 :process/facts {[:customer :id] :int
                 [:severity] [:enum :low :normal :high]
                 [:resolution] [:string {:min 3}]}
 :process/stages
 [{:stage/id :received :guards []}
  {:stage/id :triaged :after [:received] :guards [[:fact [:customer :id]] [:fact [:severity]]]}
  {:stage/id :resolved :after [:triaged] :stage/sticky? true :guards [[:signed-by :agent [:resolution]]]}]}
`;

export interface SampleData {
  readonly dir: string;
  readonly customers: number;
  readonly orders: number;
  readonly tickets: number;
}

export function generateSampleData(dir: string, opts: { customers?: number; orders?: number; tickets?: number; seed?: number } = {}): SampleData {
  const customers = opts.customers ?? 12;
  const orders = opts.orders ?? 60;
  const tickets = opts.tickets ?? 6;
  const next = rng(opts.seed ?? 42);
  mkdirSync(dir, { recursive: true });
  // Start from nothing, so a re-run gives the same data rather than adding to the last run's.
  for (const owned of ['shop.db', 'segments.csv', 'support', 'shoal-registry.db', 'shoal-registry.db-wal', 'shoal-registry.db-shm']) {
    rmSync(join(dir, owned), { recursive: true, force: true });
  }

  const db = new Database(join(dir, 'shop.db'));
  try {
    db.exec(`DROP TABLE IF EXISTS orders; DROP TABLE IF EXISTS customers;
      CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, region TEXT NOT NULL);
      CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), region TEXT NOT NULL,
                           amount NUMERIC NOT NULL, placed_on TEXT NOT NULL);`);
    const addCustomer = db.prepare('INSERT INTO customers VALUES (?, ?, ?, ?)');
    const addOrder = db.prepare('INSERT INTO orders VALUES (?, ?, ?, ?, ?)');
    const regionOf: string[] = [];
    db.transaction(() => {
      for (let i = 1; i <= customers; i++) {
        const name = FIRST[(i - 1) % FIRST.length] ?? `c${i}`;
        const region = REGIONS[Math.floor(next() * REGIONS.length)] ?? 'eu';
        regionOf[i] = region;
        addCustomer.run(i, name, `${name}@example.com`, region);
      }
      for (let i = 1; i <= orders; i++) {
        const c = 1 + Math.floor(next() * customers);
        const cents = 500 + Math.floor(next() * 50_000);
        const day = 1 + Math.floor(next() * 28);
        addOrder.run(i, c, regionOf[c] ?? 'eu', (cents / 100).toFixed(2), `2026-10-${String(day).padStart(2, '0')}`);
      }
    })();
  } finally {
    db.close();
  }

  const seg = ['customer_id,segment', ...Array.from({ length: customers }, (_, i) => `${i + 1},${SEGMENTS[Math.floor(next() * SEGMENTS.length)]}`)];
  writeFileSync(join(dir, 'segments.csv'), `${seg.join('\n')}\n`);

  writeTikStore(join(dir, 'support'), tickets, customers, next);
  return { dir, customers, orders, tickets };
}

/** Drive the real `tik` CLI (compiled beside this module) to build the support store. */
function writeTikStore(root: string, tickets: number, customers: number, next: () => number): void {
  const tikMain = tikCliPath();
  let clock = Date.parse('2026-11-01T09:00:00Z');
  const tik = (actor: string, ...args: string[]): string => {
    clock += 60_000;
    return execFileSync(process.execPath, [tikMain, '--root', root, '--actor', actor, ...args], {
      encoding: 'utf8',
      env: { ...process.env, TIK_NOW: new Date(clock).toISOString() },
    }).trim();
  };
  mkdirSync(root, { recursive: true });
  tik('demo', 'init');
  mkdirSync(join(root, 'processes'), { recursive: true });
  writeFileSync(join(root, 'processes', 'support.edn'), SUPPORT_PROCESS);
  const severities = ['low', 'normal', 'high'];
  for (let i = 1; i <= tickets; i++) {
    const customer = 1 + Math.floor(next() * customers);
    const id = tik('customer', 'new', 'support', '--title', `ticket ${i}: cannot log in`).split(/\s+/)[0] ?? '';
    if (i % 3 !== 0) tik('demo-agent', 'set', id, `customer.id=${customer}`, `severity=${severities[Math.floor(next() * 3)]}`);
    if (i % 2 === 1) tik('demo-agent', 'set', id, 'resolution=password reset');
  }
}

/** The compiled `tik` CLI: beside this module in dist/, or under the package's dist/ when run from source. */
function tikCliPath(): string {
  const sibling = fileURLToPath(new URL('../../tik/cli/main.js', import.meta.url));
  if (existsSync(sibling)) return sibling;
  for (let d = dirname(fileURLToPath(import.meta.url)); d !== dirname(d); d = dirname(d)) {
    const candidate = join(d, 'dist', 'src', 'tik', 'cli', 'main.js');
    if (existsSync(join(d, 'package.json')) && existsSync(candidate)) return candidate;
  }
  throw new Error('the compiled tik CLI was not found: run `npm run build` first');
}
