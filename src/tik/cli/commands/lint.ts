import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { Roles } from '../../kernel/index.js';
import type { CliContext } from '../context.js';

/**
 * `tik lint FILE`: parse, hash and lint a process definition; exit 1 if it has errors. Run inside
 * a store, the roles register in effect there also declares roles for `[:signed-by role …]`.
 */
export function registerLint(verb: Command, ctx: CliContext): void {
  verb
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
      const register = await storeRegister(ctx);
      const { errors, warnings } = lint(def, register ? { register } : {});
      const finding = (x: { code: string; message: string; stage?: unknown; path?: unknown }) => ({
        code: x.code,
        message: x.message,
        ...(x.stage !== undefined ? { stage: String(x.stage) } : {}),
        ...(x.path !== undefined ? { path: String(x.path) } : {}),
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
        const at = (x: { path?: string }): string => (x.path !== undefined && x.path !== '' ? ` (at ${x.path})` : '');
        for (const e of errors) ctx.out(`error   ${e.code}: ${e.message}${at(e)}`);
        for (const w of warnings) ctx.out(`warning ${w.code}: ${w.message}${at(w)}`);
        ctx.out(`${f}: ${def.id.toString()} v${def.version} ${def.hash}: ${errors.length} error${errors.length === 1 ? '' : 's'}, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`);
      }
      if (errors.length > 0) ctx.fail(1);
    });
}

/** The roles register in effect in the store lint runs in (empty when it keeps none); none outside a store. */
async function storeRegister(ctx: CliContext): Promise<Roles | undefined> {
  const { openStore } = await import('../store-access.js');
  let store;
  try {
    store = await openStore(ctx);
  } catch (e) {
    if (e instanceof TikError && e.code === 'store/not-found') return undefined;
    throw e;
  }
  const { readRegister } = await import('../../app/ticket-loader.js');
  const { parseRoleMap } = await import('../../kernel/index.js');
  const register = await readRegister(store);
  return register === undefined ? new Map() : parseRoleMap(register, 'roles.edn', '');
}
