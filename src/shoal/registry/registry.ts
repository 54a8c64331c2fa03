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
  ColumnConfig,
  DomainConfig,
  RelationshipConfig,
  RlsRuleConfig,
  RoleConfig,
  SourceConfig,
  TableConfig,
} from '../config/model.js';
import type { CatalogPlan, PlanEntry } from './catalog-plan.js';
import type { RegistryIdentity } from './registry-identity.js';

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

/** Applies to every mutation. */
export interface MutationOptions {
  /**
   * Optimistic concurrency: refuse the mutation (REGISTRY_EPOCH_MISMATCH, nothing written) unless
   * the registry is still at this epoch when the mutation takes the registry's write lock.
   */
  readonly expectedEpoch?: number;
}

/** What an apply did: the plan it carried out, computed inside its own transaction. */
export interface ApplyResult extends MutationResult {
  readonly entries: readonly PlanEntry[];
}

export interface ImportOptions extends MutationOptions {
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
  /**
   * What this handle opened (deployment id; for SQLite the file itself): the stores kept beside the
   * catalog open their own handles held to it (./identity-checked-client.ts).
   */
  readonly identity: RegistryIdentity;

  epoch(): Promise<number>;
  snapshot(): Promise<RegistrySnapshot>;

  /** Idempotent: importing the same catalog twice leaves the epoch unchanged. */
  importConfig(catalog: CatalogModel, options?: ImportOptions): Promise<MutationResult>;

  /**
   * What `applyConfig(catalog)` would do now: additions, changes and deletions per object kind and
   * id. Writes nothing; refuses an invalid catalog as apply would (REGISTRY_INVALID).
   */
  plan(catalog: CatalogModel): Promise<CatalogPlan>;
  /**
   * Make the registry exactly `catalog` (additions, changes and deletions) in one transaction under
   * the registry's write lock: one epoch bump when anything changed, none otherwise (a second apply
   * of the same catalog is a no-op). Concurrent applies serialise; none sees another half done.
   */
  applyConfig(catalog: CatalogModel, options?: MutationOptions): Promise<ApplyResult>;

  registerSource(source: SourceConfig, options?: MutationOptions): Promise<MutationResult>;
  /** Refused (REGISTRY_IN_USE) while tables reference the source. */
  dropSource(id: string, options?: MutationOptions): Promise<MutationResult>;
  registerDomain(domain: DomainConfig, options?: MutationOptions): Promise<MutationResult>;
  /** Refused while tables or RLS rules reference the domain. */
  dropDomain(id: string, options?: MutationOptions): Promise<MutationResult>;
  /**
   * Upsert a table, and with it (one mutation) RLS rules that name it: a view over governed tables
   * needs its own rules the moment it exists (see checkCatalog's CONFIG_VIEW_LAUNDERS_ROWS).
   */
  registerTable(table: TableConfig, rlsRules?: readonly RlsRuleConfig[], options?: MutationOptions): Promise<MutationResult>;
  /** By table id (alias or name) or qualified name; refused while RLS rules or relationships reference it. */
  dropTable(ref: string, options?: MutationOptions): Promise<MutationResult>;
  /** Add a column to a registered table (appended), or replace the one with the same name in place. */
  upsertColumn(tableRef: string, column: ColumnConfig, options?: MutationOptions): Promise<MutationResult>;
  /** Refused (REGISTRY_IN_USE) when it is the table's last column. */
  dropColumn(tableRef: string, name: string, options?: MutationOptions): Promise<MutationResult>;
  registerRole(role: RoleConfig, options?: MutationOptions): Promise<MutationResult>;
  /** Refused while RLS rules or child roles reference it. */
  dropRole(id: string, options?: MutationOptions): Promise<MutationResult>;
  upsertRlsRule(rule: RlsRuleConfig, options?: MutationOptions): Promise<MutationResult>;
  dropRlsRule(key: RlsRuleKey, options?: MutationOptions): Promise<MutationResult>;
  registerRelationship(relationship: RelationshipConfig, options?: MutationOptions): Promise<MutationResult>;
  dropRelationship(id: string, options?: MutationOptions): Promise<MutationResult>;

  /**
   * PostgreSQL only: call `onNotify` when any handle commits a mutation (LISTEN/NOTIFY). A fast path;
   * polling the epoch stays the source of truth. Undefined on SQLite.
   */
  readonly subscribe?: (onNotify: (epoch: number) => void) => Promise<() => Promise<void>>;

  close(): Promise<void>;
}
