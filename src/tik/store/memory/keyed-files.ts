/**
 * Everything a store holds beside the log (blobs, the process archive, named definitions, root
 * witnesses, `roles.edn`, `actors`), kept in a key→bytes bag under the file store's relative
 * paths (`tickets/<t>/blobs/<hash>`, `processes/by-hash/<hash>.edn`, `roots/<name>`, …). The memory
 * store keeps the bag in a Map, the PostgreSQL store in a `files` table; both therefore hold the
 * same names a file tree would, and export writes them out unchanged.
 */
import type { AllowedSigner } from '../../../core/sshsig.js';
import { TikError } from '../../errors.js';
import { addActorToText, parseActors } from '../actors-file.js';
import { canonicalTextProblem } from '../canonical-text.js';
import { checkDefinitionText } from '../definition-text.js';
import type { ActorEntry } from '../store.js';
import {
  CONTENT_ID,
  EVENT_FILE,
  PROCESS_NAME,
  SIDECAR_NAME,
  checkContentId,
  checkProcessName,
  checkRootSidecarName,
  checkSidecarName,
  checkTicket,
  sha256Id,
} from '../store-names.js';

/** A flat key→bytes map with directory-like listing. Keys are relative paths with `/`. */
export interface FileBag {
  get(path: string): Promise<Uint8Array | undefined>;
  /** Stores, replacing whatever was there. */
  put(path: string, bytes: Uint8Array): Promise<void>;
  /** Stores only if absent; false if the key was present. */
  create(path: string, bytes: Uint8Array): Promise<boolean>;
  /** Names directly under `dir` (keys `dir/<name>` with no further `/`). */
  list(dir: string): Promise<readonly string[]>;
}

const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString('utf8'));
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

export class KeyedFiles {
  constructor(
    /** The bag itself: migrate and export read and write the side files through it. */
    readonly bag: FileBag,
    /** Where the store lives, for messages. */
    private readonly location: string,
  ) {}

  /** Replace-if-different; false if the same bytes were there. */
  private async putIfChanged(path: string, bytes: Uint8Array): Promise<boolean> {
    const old = await this.bag.get(path);
    if (old !== undefined && same(old, bytes)) return false;
    await this.bag.put(path, bytes);
    return true;
  }

  // ── blobs ──
  async putBlob(ticket: string, bytes: Uint8Array): Promise<string> {
    checkTicket(ticket);
    const hash = sha256Id(bytes);
    await this.bag.create(`tickets/${ticket}/blobs/${hash}`, bytes);
    return hash;
  }
  async readBlob(ticket: string, hash: string): Promise<Uint8Array | undefined> {
    checkTicket(ticket);
    checkContentId(hash, 'blob hash');
    return this.bag.get(`tickets/${ticket}/blobs/${hash}`);
  }
  async blobHashes(ticket: string): Promise<readonly string[]> {
    checkTicket(ticket);
    return (await this.bag.list(`tickets/${ticket}/blobs`)).filter((n) => CONTENT_ID.test(n)).sort();
  }
  /** Tickets that hold a blob (a ticket is listed when anything of it is stored). */
  async blobTickets(): Promise<readonly string[]> {
    return this.bag.list('tickets');
  }

  // ── process definitions ──
  async archiveProcess(canonicalText: string): Promise<string> {
    const problem = canonicalTextProblem(canonicalText);
    if (problem !== undefined) {
      throw new TikError('store/not-canonical', `a definition to archive must be canonical: ${problem}`, {
        where: 'processes/by-hash',
        hint: 'archive emit(readEdn(text)), the canonical bytes the hash is taken over',
      });
    }
    const hash = sha256Id(utf8(canonicalText));
    await this.bag.create(`processes/by-hash/${hash}.edn`, utf8(canonicalText));
    return hash;
  }
  async readProcessByHash(hash: string): Promise<string | undefined> {
    checkContentId(hash, 'process hash');
    return text(await this.bag.get(`processes/by-hash/${hash}.edn`));
  }
  async archivedProcessHashes(): Promise<readonly string[]> {
    return (await this.bag.list('processes/by-hash')).flatMap((n) => {
      const m = EVENT_FILE.exec(n);
      return m ? [m[1]!] : [];
    }).sort();
  }
  async processSidecarNames(hash: string): Promise<readonly string[]> {
    checkContentId(hash, 'process hash');
    return (await this.bag.list('processes/by-hash')).filter((n) => SIDECAR_NAME.exec(n)?.[1] === hash).sort();
  }
  async readProcessSidecar(hash: string, name: string): Promise<Uint8Array | undefined> {
    checkContentId(hash, 'process hash');
    checkSidecarName(name);
    return this.bag.get(`processes/by-hash/${name}`);
  }
  async putProcessSidecar(hash: string, name: string, bytes: Uint8Array): Promise<boolean> {
    checkContentId(hash, 'process hash');
    checkSidecarName(name);
    if (SIDECAR_NAME.exec(name)?.[1] !== hash) {
      throw new TikError('store/bad-sidecar-name', `sidecar ${name} does not belong to ${hash}`, { where: 'processes/by-hash' });
    }
    return this.putIfChanged(`processes/by-hash/${name}`, bytes);
  }
  async readNamedProcess(name: string): Promise<string | undefined> {
    checkProcessName(name);
    return text(await this.bag.get(`processes/${name}.edn`));
  }
  async writeNamedProcess(name: string, source: string): Promise<void> {
    checkProcessName(name);
    checkDefinitionText(name, source);
    await this.bag.put(`processes/${name}.edn`, utf8(source));
  }
  async listProcesses(): Promise<readonly string[]> {
    return (await this.bag.list('processes'))
      .filter((n) => n.endsWith('.edn') && !n.endsWith('.tests.edn'))
      .map((n) => n.slice(0, -'.edn'.length))
      .filter((n) => PROCESS_NAME.test(n))
      .sort();
  }

  // ── root witnesses ──
  async rootWitnessNames(): Promise<readonly string[]> {
    return (await this.bag.list('roots')).filter((n) => SIDECAR_NAME.exec(n)?.[2] === 'witness').sort();
  }
  async readRootWitness(name: string): Promise<Uint8Array | undefined> {
    checkRootSidecarName(name);
    return this.bag.get(`roots/${name}`);
  }
  async putRootWitness(name: string, bytes: Uint8Array): Promise<boolean> {
    checkRootSidecarName(name);
    return this.putIfChanged(`roots/${name}`, bytes);
  }

  // ── trust and membership ──
  async readRolesRegister(): Promise<string | undefined> {
    return text(await this.bag.get('roles.edn'));
  }
  async readActorsText(): Promise<string | undefined> {
    return text(await this.bag.get('actors'));
  }
  async readActors(): Promise<readonly AllowedSigner[]> {
    return parseActors(await this.readActorsText(), `${this.location}/actors`);
  }
  async addActor(name: string, pubkeyLine: string): Promise<ActorEntry> {
    const { entry, text } = addActorToText(await this.readActorsText(), name, pubkeyLine, `${this.location}/actors`);
    if (text !== undefined) await this.bag.put('actors', utf8(text));
    return entry;
  }

  /** Writes a top-level file that has no verb of its own (`roles.edn`, `actors`, `processes/<x>.tests.edn`): for migrate and import. */
  async writeSideFile(path: string, bytes: Uint8Array): Promise<void> {
    await this.bag.put(path, bytes);
  }
}
