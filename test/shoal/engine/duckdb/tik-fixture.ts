/**
 * A real tik file store for the engine tests, written through the `tik` command in process
 * (fixed clock and ticket ids), with `tik status --json` as the oracle for derived stages.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runTik } from '../../../../src/tik/cli/run.js';
import type { CliIo } from '../../../../src/tik/cli/io.js';

const CONFORMANCE = resolve(process.cwd(), '../shared/tik-conformance');
/** The instant the store's first event is written at. */
export const TIK_START = Date.parse('2026-01-05T10:00:00Z');

export interface TikFixture {
  readonly root: string;
  /** Ticket ids in creation order. */
  readonly tickets: readonly string[];
  /** `tik <argv> --json` parsed (status, log, …), at `TIK_NOW = now`. */
  json(argv: readonly string[], now: number): Promise<unknown>;
  cleanup(): void;
}

export async function makeTikStore(): Promise<TikFixture> {
  const root = mkdtempSync(join(tmpdir(), 'shoal-tik-'));
  let clock = TIK_START;
  let n = 0;
  let out = '';
  let err = '';
  const io = (env: Record<string, string> = {}): CliIo => ({
    out: (s) => {
      out += s;
    },
    err: (s) => {
      err += s;
    },
    env: { TIK_ROOT: root, TIK_ACTOR: 'seb', ...env },
    cwd: root,
    clock: () => (clock += 60_000),
    randomUuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    osUser: () => 'seb',
    isTty: false,
  });
  const tik = async (argv: readonly string[], env?: Record<string, string>): Promise<string> => {
    out = '';
    err = '';
    const code = await runTik(argv, io(env));
    if (code !== 0) throw new Error(`tik ${argv.join(' ')} exited ${code}: ${err}`);
    return out;
  };
  await tik(['init']);
  mkdirSync(join(root, 'processes'), { recursive: true });
  copyFileSync(join(CONFORMANCE, 'processes', 'support-request.edn'), join(root, 'processes', 'support-request.edn'));
  copyFileSync(join(CONFORMANCE, 'roles.edn'), join(root, 'roles.edn'));
  const created: string[] = [];
  const make = async (title: string): Promise<string> => {
    const id = (await tik(['new', 'support-request', '--title', title])).trim();
    created.push(id);
    return id;
  };
  const t1 = await make('Printer on fire');
  await tik(['set', t1, 'category=:technical', 'severity=:high']);
  const t2 = await make('Refund please');
  await tik(['set', t2, 'category=:billing', 'severity=:low', 'resolution.ref=abc12345']);
  const t3 = await make('Locked out');
  await tik(['set', t3, 'severity=:normal']);
  await tik(['retract', t3, 'severity', '--reason', 'asked twice']);
  const t4 = await make("Quote ' and ünïcode");
  await tik(['set', t4, 'category=:account']);
  await tik(['dispute', t4, 'category', '--reason', 'not an account issue'], { TIK_ACTOR: 'billing' });
  return {
    root,
    tickets: created,
    json: async (argv, now) => JSON.parse(await tik([...argv, '--json'], { TIK_NOW: new Date(now).toISOString() })) as unknown,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
