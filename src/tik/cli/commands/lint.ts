import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { CliContext } from '../context.js';

/** `tik lint FILE`: parse, hash and lint a process definition; exit 1 if it has errors. */
export function registerLint(program: Command, ctx: CliContext): void {
  program
    .command('lint')
    .description('check a process definition: errors fail, warnings are advice')
    .argument('<file>', 'a process definition (.edn)')
    .option('--json', 'print {file, process, version, hash, errors, warnings} as JSON')
    .action(async (f: string, opts: { json?: boolean }) => {
      const { readEdn } = await import('../../edn/index.js');
      const { lint, parseProcess } = await import('../../kernel/index.js');
      const file = ctx.path(f);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        throw new TikError('cli/no-file', `cannot read ${f}`, { where: f, hint: 'give the path of a process definition file' });
      }
      const def = parseProcess(readEdn(text, f), f);
      const { errors, warnings } = lint(def);
      const finding = (x: { code: string; message: string; stage?: unknown; path?: unknown }) => ({
        code: x.code,
        message: x.message,
        ...(x.stage !== undefined ? { stage: String(x.stage) } : {}),
      });
      if (opts.json) {
        ctx.json({
          file: f,
          process: def.id.toString(),
          version: Number(def.version),
          hash: def.hash,
          errors: errors.map(finding),
          warnings: warnings.map(finding),
        });
      } else {
        for (const e of errors) ctx.out(`error   ${e.code}: ${e.message}`);
        for (const w of warnings) ctx.out(`warning ${w.code}: ${w.message}`);
        ctx.out(`${f}: ${def.id.toString()} v${def.version} ${def.hash}: ${errors.length} error${errors.length === 1 ? '' : 's'}, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`);
      }
      if (errors.length > 0) ctx.fail(1);
    });
}
