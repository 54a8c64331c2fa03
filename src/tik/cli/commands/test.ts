import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { TikError } from '../../errors.js';
import { detectLayout } from '../../store/file/discover.js';
import type { Command } from 'commander';
import { isCodedError } from '../../../core/errors.js';
import type { CliContext } from '../context.js';

/**
 * `tik test FILE.tests.edn…`: run scripted tests (§11.3). One line per case, then exactly
 * `N passed, N failed`; exit 1 on any failure. A file that cannot be read or parsed counts as one
 * failed case, named after the file, so the summary still adds up.
 */
export function registerTest(verb: Command, ctx: CliContext): void {
  verb
    .argument('[files...]', 'tests files (default: every processes/*.tests.edn of the store)')
    .option('--json', 'print the results as JSON')
    .action(async (given: string[], opts: { json?: boolean }) => {
      const { runScript } = await import('../../testing/scripted.js');
      const files = given.length > 0 ? given : storeTests(ctx);
      let passed = 0;
      let failed = 0;
      const results: { file: string; cases: { name: string; passed: boolean; problems: readonly string[] }[] }[] = [];
      for (const f of files) {
        const file = ctx.path(f);
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch {
          results.push({ file: f, cases: [{ name: f, passed: false, problems: [`cannot read ${f}`] }] });
          continue;
        }
        try {
          const r = runScript(text, file);
          results.push({ file: f, cases: r.cases.map((c) => ({ ...c })) });
        } catch (e) {
          const message = isCodedError(e) ? e.describe().replace(/\n\s*/g, ' ') : e instanceof Error ? e.message : String(e);
          results.push({ file: f, cases: [{ name: f, passed: false, problems: [message] }] });
        }
      }
      for (const r of results) for (const c of r.cases) if (c.passed) passed++; else failed++;
      if (opts.json) {
        ctx.json({ files: results, passed, failed });
      } else {
        for (const r of results) {
          for (const c of r.cases) {
            ctx.out(c.passed ? `PASS ${r.file}: ${c.name}` : `FAIL ${r.file}: ${c.name}: ${c.problems.join('; ')}`);
          }
        }
        ctx.out(`${passed} passed, ${failed} failed`);
      }
      if (failed > 0) ctx.fail(1);
    });
}

/** Every `processes/*.tests.edn` of the store (paths relative to the working directory). */
function storeTests(ctx: CliContext): string[] {
  const layout = detectLayout(ctx.root());
  const dir = join(layout.kind === 'file' ? layout.base : layout.kind === 'sqlite' ? dirname(layout.path) : layout.root, 'processes');
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.tests.edn'));
  } catch {
    names = [];
  }
  if (names.length === 0) {
    throw new TikError('cli/usage', `no tests files given and none in ${dir}`, {
      where: 'files',
      hint: 'give FILE.tests.edn paths, or put scripted tests at processes/<name>.tests.edn',
    });
  }
  return names.sort().map((f) => relative(ctx.io.cwd, join(dir, f)));
}
