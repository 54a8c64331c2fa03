/**
 * A CLI scenario shared by the backend tests (SQLite here, PostgreSQL under test/integration):
 * tickets with asserts, a dispute, a retraction, an attachment (a blob) and a comment, written
 * through the real `tik` verbs.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CONFORMANCE, tik } from '../cli/harness.js';

/** Puts upstream's support-request definition and roles register into a store directory. */
export function addSupportProcess(base: string): void {
  copyFileSync(join(CONFORMANCE, 'processes/support-request.edn'), join(base, 'processes/support-request.edn'));
  copyFileSync(join(CONFORMANCE, 'roles.edn'), join(base, 'roles.edn'));
}

async function ok(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  const r = await tik(cwd, args, env);
  expect(r.stderr, `tik ${args.join(' ')}`).toBe('');
  expect(r.code, `tik ${args.join(' ')}`).toBe(0);
  return r.stdout;
}

/** Runs the scenario in `cwd` against the store `root` (a directory or a URL); returns the ticket ids. */
export async function writeScenario(cwd: string, root: string): Promise<string[]> {
  const r = ['--root', root];
  const a = (await ok(cwd, [...r, 'new', 'support-request', '--title', 'login broken'])).trim();
  const b = (await ok(cwd, [...r, 'new', 'support-request', '--title', 'invoice wrong'])).trim();
  await ok(cwd, [...r, 'set', a, 'category=technical', 'severity=high']);
  await ok(cwd, [...r, '--actor', 'billing', 'dispute', a, 'category', '--reason', 'not technical']);
  await ok(cwd, [...r, 'set', b, 'category=billing']);
  await ok(cwd, [...r, 'retract', b, 'category']);
  writeFileSync(join(cwd, 'crash.sh'), '#!/bin/sh\necho crash\n');
  await ok(cwd, [...r, 'attach', a, 'crash.sh']);
  await ok(cwd, [...r, 'comment', b, 'hello', 'world']);
  return [a, b].sort();
}

/** `status --json` of every ticket plus `ls --json`, as one comparable value. */
export async function derivations(cwd: string, root: string, tickets: readonly string[]): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const t of tickets) out[t] = JSON.parse(await ok(cwd, ['--root', root, 'status', t, '--json']));
  out.ls = JSON.parse(await ok(cwd, ['--root', root, 'ls', '--all', '--json']));
  return out;
}
