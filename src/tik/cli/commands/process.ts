import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { CliContext } from '../context.js';

/**
 * `tik process sign <name|hash> [--key FILE]`: publish a definition (upstream ADR 0015). A name
 * archives the current `processes/<name>.edn` by its canonical hash (lint errors refuse, as for
 * `tik new`); a `sha256-…` hash names an archived definition. The archived canonical bytes are
 * signed in namespace `tik-process` (`processes/by-hash/<hash>.sig.<fpr16>`). The hash stays the
 * identity; the signature is the authority a `tik serve --admit signed` replica asks for before it
 * admits the definition, and it travels with the definition on every sync.
 */
export function registerProcess(verb: Command, ctx: CliContext): void {
  verb
    .command('sign')
    .description('archive a definition and sign its canonical bytes (namespace tik-process) with an Ed25519 key')
    .argument('<definition>', 'a process name (processes/<name>.edn) or an archived hash sha256-…')
    .option('--key <file>', 'OpenSSH ed25519 private key (default: $TIK_KEY)')
    .option('--json', 'print {process, hash, sidecar, written}')
    .action(async (definition: string, opts: { key?: string; json?: boolean }) => {
      const { emit, readEdn } = await import('../../edn/index.js');
      const { lint, parseProcess } = await import('../../kernel/index.js');
      const { CONTENT_ID } = await import('../../store/store-names.js');
      const { signProcess } = await import('../../verify/index.js');
      const { envSigningKey } = await import('../signing-key.js');
      const { openStore } = await import('../store-access.js');
      const key = envSigningKey(ctx, opts.key);
      if (!key) {
        throw new TikError('cli/usage', 'no signing key: pass --key FILE or set TIK_KEY', {
          where: '--key',
          hint: 'create one with ssh-keygen -t ed25519 -N "" -f tik-key, and register it with tik actor add <name> tik-key.pub',
        });
      }
      const store = await openStore(ctx);
      let hash: string;
      let name: string | undefined;
      if (CONTENT_ID.test(definition)) hash = definition;
      else {
        name = definition;
        const text = await store.readNamedProcess(name);
        const file = `processes/${name}.edn`;
        if (text === undefined) {
          const known = await store.listProcesses();
          throw new TikError('cli/unknown-process', `no process definition ${file}`, {
            where: name,
            hint: known.length > 0 ? `known processes: ${known.join(', ')}` : 'write a definition at processes/<name>.edn first',
          });
        }
        const def = parseProcess(readEdn(text, file), file);
        const { errors } = lint(def);
        if (errors.length > 0) {
          throw new TikError('process/lint', `${file} fails lint: ${errors.map((e) => `${e.code}: ${e.message}`).join('; ')}`, {
            where: file,
            hint: `run tik lint ${file} and fix the errors; a definition that fails lint is not published`,
          });
        }
        hash = await store.archiveProcess(emit(def.raw));
      }
      const r = await signProcess(store, hash, key);
      if (opts.json) ctx.json({ process: name ?? null, hash, sidecar: r.name, written: r.written });
      else ctx.out(`published ${name !== undefined ? `${name} @ ` : ''}${hash}\nsignature ${r.name}`);
    });
}
