import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, json, tempDir, tik } from './harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

// A definition whose one role lives only in a roles register, and whose second stage misspells :guards.
const DEF = `{:process/id :approval :process/version 1 :lint {:runbooks :off}
  :process/facts {[:decision] [:enum :yes :no]}
  :process/stages [{:stage/id :asked}
                   {:stage/id :approved :after [:asked] :guards [[:signed-by :approver [:decision]]]}
                   {:stage/id :filed :after [:approved] :gaurds [[:fact [:decision]]]}]}`;

interface LintJson {
  errors: unknown[];
  warnings: { code: string; message: string; stage?: string; path?: string }[];
}

describe('tik lint FILE: unknown keys and undeclared roles', () => {
  it('outside a store, a :signed-by role the definition does not declare is a warning; a misspelt key names its location', async () => {
    const d = tempDir();
    dirs.push(d);
    writeFileSync(join(d, 'approval.edn'), DEF);
    const r = await tik(d, ['lint', 'approval.edn', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as LintJson;
    expect(out.errors).toEqual([]);
    expect(out.warnings.map((w) => [w.code, w.stage, w.path])).toEqual([
      ['lint/unknown-key', ':filed', ':process/stages 2 :gaurds'],
      ['lint/undeclared-role', ':approved', ':process/stages 1 :guards 0'],
    ]);
    const text = await tik(d, ['lint', 'approval.edn']);
    expect(text.stdout).toMatch(/warning lint\/unknown-key: stage :filed: unknown key :gaurds.*did you mean :guards\?/);
    expect(text.stdout).toMatch(/at :process\/stages 2 :gaurds/);
  });

  it('inside a store, the roles register counts as declaring a role', async () => {
    const d = tempDir();
    dirs.push(d);
    expect((await tik(d, ['init'])).code).toBe(0);
    writeFileSync(join(d, 'approval.edn'), DEF);
    const none = json<LintJson>(await tik(d, ['lint', 'approval.edn', '--json']));
    expect(none.warnings.find((w) => w.code === 'lint/undeclared-role')?.message).toMatch(/neither :process\/roles nor the roles register declares/);
    writeFileSync(join(d, 'roles.edn'), '{:approver {:members ["seb"]}}');
    const out = json<LintJson>(await tik(d, ['lint', 'approval.edn', '--json']));
    expect(out.warnings.map((w) => w.code)).toEqual(['lint/unknown-key']);
    writeFileSync(join(d, 'roles.edn'), '{:aprover {:members ["seb"]}}');
    const typo = json<LintJson>(await tik(d, ['lint', 'approval.edn', '--json']));
    const role = typo.warnings.find((w) => w.code === 'lint/undeclared-role');
    expect(role?.message).toMatch(/neither :process\/roles nor the roles register declares.*did you mean :aprover\?/);
  });
});
