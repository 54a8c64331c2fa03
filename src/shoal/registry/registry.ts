/**
 * The control-plane registry (ARCHITECTURE.md S1, S2): the durable home of the governed catalog,
 * shared by every instance of a fleet. One interface, two implementations chosen by URL (SQLite file
 * for one machine, PostgreSQL for a fleet). Every mutation is one transaction that also bumps the
 * single-row config epoch — but only when the catalog really changed — so instances that poll the
 * epoch (./watch-epoch.ts) rebuild their engine catalog exactly when there is something new.
 *
 * Secrets: a source password is stored only as an `${env:VAR}` reference; a literal password is
 * refused (REGISTRY_PLAINTEXT_SECRET) so plain text never reaches the registry.
 */
import type {
  CatalogModel,
  DomainConfig,
  RelationshipConfig,
  RlsRuleConfig,
  RoleConfig,
  SourceConfig,
  TableConfig,
} from '../config/model.js';

export interface RegistrySnapshot {
  /** The epoch the catalog was read at (one consistent read). */
  readonly epoch: number;
  /** Sorted by id (tables' columns keep their order), so equal registries give equal snapshots. */
  readonly catalog: CatalogModel;
}

export interface MutationResult {
  /** The epoch after the mutation (unchanged when nothing changed). */
  readonly epoch: number;
  readonly changed: boolean;
  /** One line per changed entity, e.g. `upsert table orders`, `delete source old-pg`. */
  readonly changes: readonly string[];
}

export interface ImportOptions {
  /**
   * Delete registry entries the imported catalog doesn't have. Default false: import merges (upserts
   * every entry of the config, leaves entries registered through the admin API alone).
   */
  readonly prune?: boolean;
}

/** Identifies an RLS rule: its target (a table id or a domain id) and its role. */
export type RlsRuleKey = Pick<RlsRuleConfig, 'table_id' | 'domain_id' | 'role_id'>;

export interface Registry {
  readonly dialect: 'sqlite' | 'postgres';
  /** The URL with any password redacted. */
  readonly url: string;
  /** This deployment's identity, minted when the registry was first opened and stored in it (./deployment-id.ts). */
  readonly deploymentId: string;

  epoch(): Promise<number>;
  snapshot(): Promise<RegistrySnapshot>;

  /** Idempotent: importing the same catalog twice leaves the epoch unchanged. */
  importConfig(catalog: CatalogModel, options?: ImportOptions): Promise<MutationResult>;

  registerSource(source: SourceConfig): Promise<MutationResult>;
  /** Refused (REGISTRY_IN_USE) while tables reference the source. */
  dropSource(id: string): Promise<MutationResult>;
  registerDomain(domain: DomainConfig): Promise<MutationResult>;
  /** Refused while tables or RLS rules reference the domain. */
  dropDomain(id: string): Promise<MutationResult>;
  /**
   * Upsert a table, and with it (one mutation) RLS rules that name it: a view over governed tables
   * needs its own rules the moment it exists (see checkCatalog's CONFIG_VIEW_LAUNDERS_ROWS).
   */
  registerTable(table: TableConfig, rlsRules?: readonly RlsRuleConfig[]): Promise<MutationResult>;
  /** By table id (alias or name) or qualified name; refused while RLS rules or relationships reference it. */
  dropTable(ref: string): Promise<MutationResult>;
  registerRole(role: RoleConfig): Promise<MutationResult>;
  /** Refused while RLS rules or child roles reference it. */
  dropRole(id: string): Promise<MutationResult>;
  upsertRlsRule(rule: RlsRuleConfig): Promise<MutationResult>;
  dropRlsRule(key: RlsRuleKey): Promise<MutationResult>;
  registerRelationship(relationship: RelationshipConfig): Promise<MutationResult>;
  dropRelationship(id: string): Promise<MutationResult>;

  /**
   * PostgreSQL only: call `onNotify` when any handle commits a mutation (LISTEN/NOTIFY). A fast path;
   * polling the epoch stays the source of truth. Undefined on SQLite.
   */
  readonly subscribe?: (onNotify: (epoch: number) => void) => Promise<() => Promise<void>>;

  close(): Promise<void>;
}
