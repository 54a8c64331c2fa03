/**
 * Builds real file stores for verify tests: events minted by the kernel, keys made by the real
 * ssh-keygen, signatures made in process.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Instant, ednMap, emit, kw, readEdn, uuid, type EdnValue } from '../../../src/tik/edn/index.js';
import { mintEvent } from '../../../src/tik/kernel/index.js';
import { parseOpenSshPrivateKey, type SshPrivateKey } from '../../../src/core/sshsig.js';
import { initStore } from '../../../src/tik/store/file/open-file-store.js';
import type { FileStore } from '../../../src/tik/store/file/file-store.js';
import { sha256Id } from '../../../src/tik/store/store-names.js';

export const CORPUS = join(process.cwd(), '..', 'shared', 'tik-conformance', 'corpus');
export const TICKET = '018f2f6e-7c1a-7000-8000-0000000000aa';
export const T0 = Date.parse('2026-07-08T10:00:00Z');

/** A small definition: :open once created, :done once [:resolution] is present. */
export const DEFINITION_SOURCE = `;; demo
{:process/id :demo
 :process/version 1
 :process/stages [{:stage/id :open :guards []}
                  {:stage/id :done :after [:open] :guards [[:fact [:resolution]]]}]}`;

export interface Key {
  readonly path: string;
  readonly key: SshPrivateKey;
  readonly pubLine: string;
}

/** A fresh Ed25519 key made by ssh-keygen in `dir`. */
export function makeKey(dir: string, name: string): Key {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${name}@test`, '-f', path]);
  return { path, key: parseOpenSshPrivateKey(readFileSync(path, 'utf8'), path), pubLine: readFileSync(`${path}.pub`, 'utf8') };
}

export interface Built {
  readonly root: string;
  readonly store: FileStore;
  readonly hash: string;
  /** create, assert [:category], assert [:resolution] (a chain). */
  readonly ids: readonly string[];
  readonly cleanup: () => void;
}

export function mint(
  ticket: string,
  type: string,
  actor: string,
  atMs: number,
  parents: readonly string[],
  body: ReadonlyArray<readonly [string, EdnValue]>,
): { id: string; bytes: Buffer } {
  const { event, text } = mintEvent({
    ticket: uuid(ticket),
    type: kw(type),
    actor,
    at: new Instant(atMs),
    parents,
    body: ednMap(body.map(([k, v]) => [kw(k), v] as const)),
  });
  return { id: event.id, bytes: Buffer.from(text, 'utf8') };
}

/** A clean store: archived definition, named copy, a three-event chain by "seb". */
export async function buildStore(options: { archive?: boolean; named?: string | false; pinHash?: string } = {}): Promise<Built> {
  const root = mkdtempSync(join(tmpdir(), 'tik-verify-'));
  const store = await initStore(root);
  const canonical = emit(readEdn(DEFINITION_SOURCE));
  const hash = options.archive === false ? sha256Id(canonical) : await store.archiveProcess(canonical);
  if (options.named !== false) await store.writeNamedProcess('demo', options.named ?? DEFINITION_SOURCE);
  const create = mint(TICKET, 'ticket/create', 'seb', T0, [], [
    ['ticket/title', 'a demo'],
    ['ticket/process', kw('demo')],
    ['ticket/process-version', 1n],
    ['ticket/process-hash', options.pinHash ?? hash],
  ]);
  const a1 = mint(TICKET, 'fact/assert', 'seb', T0 + 60_000, [create.id], [
    ['fact/path', [kw('category')]],
    ['fact/value', kw('billing')],
  ]);
  const a2 = mint(TICKET, 'fact/assert', 'seb', T0 + 120_000, [a1.id], [
    ['fact/path', [kw('resolution')]],
    ['fact/value', 'fixed'],
  ]);
  for (const e of [create, a1, a2]) await store.append(TICKET, e.id, e.bytes);
  return { root, store, hash, ids: [create.id, a1.id, a2.id], cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Copies a corpus case into a temp dir (tests never write into the conformance data). */
export function copyCorpus(name: string): { root: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), `tik-corpus-${name}-`));
  cpSync(join(CORPUS, name), root, { recursive: true });
  rmSync(join(root, 'expected.edn'));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A fingerprint of a whole tree: relative path, size, mtime and bytes of every file. */
export function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        out.push(`${relative(dir, p)}/`);
        walk(p);
      } else {
        const st = statSync(p);
        out.push(`${relative(dir, p)} ${st.size} ${st.mtimeMs} ${readFileSync(p).toString('base64')}`);
      }
    }
  };
  walk(dir);
  return out.join('\n');
}

export const eventPath = (root: string, ticket: string, id: string): string => join(root, 'tickets', ticket, 'events', `${id}.edn`);
