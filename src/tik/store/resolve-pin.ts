/**
 * Pin resolution (tik-model.md §4.2): a ticket is pinned to a definition by name, version and
 * hash (the last create or migrate in fold order). Use `processes/by-hash/<hash>.edn` if it is
 * there; else fall back to `processes/<name>.edn`, warning when its hash differs from the pin.
 * Nothing here throws for bad data: problems are returned.
 */
import { Keyword, isMap, readEdn, type EdnMap } from '../edn/index.js';
import { effectiveRegister } from '../roles/effective-register.js';
import { parseProcess, resolveRoles, type ProcessDef, type Roles, type TicketState } from '../kernel/index.js';
import { problem, type StoreProblem } from './problem.js';
import type { EventStore } from './store.js';
import { CONTENT_ID, PROCESS_NAME, sha256Id } from './store-names.js';

/** What a ticket is pinned to. */
export interface Pin {
  /** The process name (`:ticket/process` without the colon), e.g. `support-request`. */
  readonly process: string | undefined;
  readonly version: bigint | undefined;
  readonly hash: string | undefined;
}

export interface PinResolution {
  readonly definition: ProcessDef | undefined;
  /** Where the definition came from. */
  readonly source: 'by-hash' | 'named' | undefined;
  /** The file it came from, relative to the store (`processes/…`). */
  readonly file: string | undefined;
  /** The pin cannot be honoured (no definition, unreadable, or an archive that lies). */
  readonly problems: readonly StoreProblem[];
  /** Degraded but usable: the named fallback's hash differs from the pin (`process/pin-mismatch`). */
  readonly warnings: readonly StoreProblem[];
}

/** The pin recorded in a reduced ticket state. */
export function pinOf(state: TicketState): Pin {
  const p = state.process;
  const v = state.processVersion;
  const h = state.processHash;
  return Object.freeze({
    process: p instanceof Keyword ? p.name : typeof p === 'string' ? p : undefined,
    version: typeof v === 'bigint' ? v : undefined,
    hash: typeof h === 'string' ? h : undefined,
  });
}

type Parsed = { readonly def: ProcessDef; readonly error?: undefined } | { readonly def?: undefined; readonly error: string };

/**
 * Reads a store's definitions and roles register once per use, so many tickets can be resolved
 * against one store without re-reading and re-parsing the same files.
 */
export class LoadContext {
  private readonly byHash = new Map<string, Promise<{ text: string | undefined }>>();
  private readonly named = new Map<string, Promise<{ text: string | undefined }>>();
  private readonly parsed = new Map<string, Parsed>();
  private register: Promise<{ register: EdnMap | undefined; problems: readonly StoreProblem[] }> | undefined;

  constructor(readonly store: EventStore) {}

  private readByHash(hash: string): Promise<{ text: string | undefined }> {
    let p = this.byHash.get(hash);
    if (!p) {
      p = this.store.readProcessByHash(hash).then((text) => ({ text }));
      this.byHash.set(hash, p);
    }
    return p;
  }

  private readNamed(name: string): Promise<{ text: string | undefined }> {
    let p = this.named.get(name);
    if (!p) {
      p = this.store.readNamedProcess(name).then((text) => ({ text }));
      this.named.set(name, p);
    }
    return p;
  }

  private parse(text: string, file: string): Parsed {
    const key = `${file}\u0000${text}`;
    let hit = this.parsed.get(key);
    if (!hit) {
      try {
        hit = { def: parseProcess(readEdn(text, file), file) };
      } catch (e) {
        hit = { error: describe(e) };
      }
      this.parsed.set(key, hit);
    }
    return hit;
  }

  /** Resolves a pin to a definition (§4.2). */
  async resolve(pin: Pin): Promise<PinResolution> {
    const problems: StoreProblem[] = [];
    const warnings: StoreProblem[] = [];
    const done = (definition: ProcessDef | undefined, source: PinResolution['source'], file: string | undefined): PinResolution =>
      Object.freeze({ definition, source, file, problems: Object.freeze(problems), warnings: Object.freeze(warnings) });

    if (pin.hash !== undefined && CONTENT_ID.test(pin.hash)) {
      const file = `processes/by-hash/${pin.hash}.edn`;
      const { text } = await this.readByHash(pin.hash);
      if (text !== undefined) {
        const actual = sha256Id(Buffer.from(text, 'utf8'));
        if (actual !== pin.hash) {
          problems.push(
            problem('process/by-hash-mismatch', `${file} hashes to ${actual}, not to its name`, {
              where: file,
              hint: 'the archive was edited; restore it from a replica (archived definitions never change)',
            }),
          );
        } else {
          const r = this.parse(text, file);
          if (r.def) return done(r.def, 'by-hash', file);
          problems.push(problem('process/unreadable', `${file} is not a valid definition: ${r.error}`, { where: file }));
          return done(undefined, undefined, undefined);
        }
      }
    } else if (pin.hash !== undefined) {
      problems.push(problem('process/bad-pin', `the pinned hash ${JSON.stringify(pin.hash)} is not sha256-<64 hex>`));
    }

    if (pin.process === undefined) {
      problems.push(
        problem('process/unpinned', 'the ticket names no process (no :ticket/create with :ticket/process)', {
          hint: 'a ticket starts with a :ticket/create event; sync the missing events from a replica',
        }),
      );
      return done(undefined, undefined, undefined);
    }
    if (!PROCESS_NAME.test(pin.process)) {
      problems.push(problem('process/bad-name', `process name ${JSON.stringify(pin.process)} cannot name a file in processes/`));
      return done(undefined, undefined, undefined);
    }
    const file = `processes/${pin.process}.edn`;
    const { text } = await this.readNamed(pin.process);
    if (text === undefined) {
      const pinned = pin.hash !== undefined ? ` and processes/by-hash/${pin.hash}.edn is absent` : '';
      problems.push(
        problem('process/unresolved', `the pinned definition cannot be found: ${file} does not exist${pinned}`, {
          where: file,
          hint: 'restore the definition (or its archive under processes/by-hash/) from a replica',
        }),
      );
      return done(undefined, undefined, undefined);
    }
    const r = this.parse(text, file);
    if (!r.def) {
      problems.push(problem('process/unreadable', `${file} is not a valid definition: ${r.error}`, { where: file }));
      return done(undefined, undefined, undefined);
    }
    if (pin.hash !== undefined && r.def.hash !== pin.hash) {
      warnings.push(
        problem('process/pin-mismatch', `the ticket is pinned to ${pin.hash}, which is not archived; ${file} hashes to ${r.def.hash}`, {
          where: file,
          hint: 'derivation uses the named definition; archive the pinned one under processes/by-hash/, or migrate the ticket',
        }),
      );
    }
    return done(r.def, 'named', file);
  }

  /** The parsed `roles.edn` register (undefined if absent), with problems if it is unreadable. */
  rolesRegister(): Promise<{ register: EdnMap | undefined; problems: readonly StoreProblem[] }> {
    if (!this.register) {
      this.register = effectiveRegister(this.store).then(({ text }) => {
        if (text === undefined) return { register: undefined, problems: [] };
        try {
          const v = readEdn(text, 'roles.edn');
          if (!isMap(v)) return { register: undefined, problems: [problem('roles/malformed', 'roles.edn is not a map', { where: 'roles.edn' })] };
          return { register: v, problems: [] };
        } catch (e) {
          return { register: undefined, problems: [problem('roles/malformed', `roles.edn does not parse: ${describe(e)}`, { where: 'roles.edn' })] };
        }
      });
    }
    return this.register;
  }

  /** Roles for a definition: its own, merged with `roles.edn` (§4.3). */
  async roles(def: ProcessDef): Promise<{ roles: Roles; problems: readonly StoreProblem[] }> {
    const { register, problems } = await this.rolesRegister();
    try {
      return { roles: resolveRoles(def, register), problems };
    } catch (e) {
      return {
        roles: resolveRoles(def),
        problems: [...problems, problem('roles/malformed', `roles.edn is not a role register: ${describe(e)}`, { where: 'roles.edn' })],
      };
    }
  }
}

export function describe(e: unknown): string {
  if (e instanceof Error) {
    const pos = (e as { position?: { line: number; column: number } }).position;
    return pos ? `${e.message} (line ${pos.line}, column ${pos.column})` : e.message;
  }
  return String(e);
}
