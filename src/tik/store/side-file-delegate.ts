import type { AllowedSigner } from '../../core/sshsig.js';
import type { FileBag, KeyedFiles } from './memory/keyed-files.js';
import type { ActorEntry, EventStore } from './store.js';

/** The part of the store contract that is not the event log: definitions, witnesses, trust files. */
export type SideFileOps = Pick<
  EventStore,
  | 'archiveProcess'
  | 'readProcessByHash'
  | 'archivedProcessHashes'
  | 'processSidecarNames'
  | 'readProcessSidecar'
  | 'putProcessSidecar'
  | 'readNamedProcess'
  | 'writeNamedProcess'
  | 'listProcesses'
  | 'rootWitnessNames'
  | 'readRootWitness'
  | 'putRootWitness'
  | 'readRolesRegister'
  | 'readActorsText'
  | 'readActors'
  | 'addActor'
>;

/**
 * A log-only backend (SQLite, PostgreSQL, memory) keeps everything beside the log in another
 * store of side files — the file store's code over a directory, or keyed files in a table or in
 * memory — and forwards those calls to it. One place for the forwarding, not one per backend.
 */
export abstract class SideFileDelegate implements SideFileOps {
  protected abstract readonly files: SideFileOps;

  archiveProcess(canonicalText: string): Promise<string> {
    return this.files.archiveProcess(canonicalText);
  }
  readProcessByHash(hash: string): Promise<string | undefined> {
    return this.files.readProcessByHash(hash);
  }
  archivedProcessHashes(): Promise<readonly string[]> {
    return this.files.archivedProcessHashes();
  }
  processSidecarNames(hash: string): Promise<readonly string[]> {
    return this.files.processSidecarNames(hash);
  }
  readProcessSidecar(hash: string, name: string): Promise<Uint8Array | undefined> {
    return this.files.readProcessSidecar(hash, name);
  }
  putProcessSidecar(hash: string, name: string, bytes: Uint8Array): Promise<boolean> {
    return this.files.putProcessSidecar(hash, name, bytes);
  }
  readNamedProcess(name: string): Promise<string | undefined> {
    return this.files.readNamedProcess(name);
  }
  writeNamedProcess(name: string, text: string): Promise<void> {
    return this.files.writeNamedProcess(name, text);
  }
  listProcesses(): Promise<readonly string[]> {
    return this.files.listProcesses();
  }
  rootWitnessNames(): Promise<readonly string[]> {
    return this.files.rootWitnessNames();
  }
  readRootWitness(name: string): Promise<Uint8Array | undefined> {
    return this.files.readRootWitness(name);
  }
  putRootWitness(name: string, bytes: Uint8Array): Promise<boolean> {
    return this.files.putRootWitness(name, bytes);
  }
  readRolesRegister(): Promise<string | undefined> {
    return this.files.readRolesRegister();
  }
  readActorsText(): Promise<string | undefined> {
    return this.files.readActorsText();
  }
  readActors(): Promise<readonly AllowedSigner[]> {
    return this.files.readActors();
  }
  addActor(name: string, pubkeyLine: string): Promise<ActorEntry> {
    return this.files.addActor(name, pubkeyLine);
  }
}

/** Backends with no directory beside them (PostgreSQL, memory): blobs live among the keyed files too. */
export abstract class KeyedFilesDelegate extends SideFileDelegate {
  protected abstract override readonly files: KeyedFiles;

  putBlob(ticket: string, bytes: Uint8Array): Promise<string> {
    return this.files.putBlob(ticket, bytes);
  }
  readBlob(ticket: string, hash: string): Promise<Uint8Array | undefined> {
    return this.files.readBlob(ticket, hash);
  }
  blobHashes(ticket: string): Promise<readonly string[]> {
    return this.files.blobHashes(ticket);
  }
  /** Everything beside the log, by relative path (migrate, export, import). */
  sideFiles(): FileBag {
    return this.files.bag;
  }
  /** Writes `roles.edn`, `actors` or `processes/<x>.tests.edn` verbatim (migrate, import). */
  writeSideFile(path: string, bytes: Uint8Array): Promise<void> {
    return this.files.writeSideFile(path, bytes);
  }
}
