/**
 * The `audit:` key: the per-request audit log (src/shoal/audit). Records are written to the
 * registry's database from a bounded in-memory queue; these keys bound it.
 */
import { z } from 'zod';
import type { KeyCatalog } from './config-schema.js';

const optional = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
const bool = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());
const int = z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v), z.number().int());

export const auditSchema = z.object({
  enabled: optional(bool),
  queue_size: optional(int.pipe(z.number().int().min(1).max(1_000_000))),
  batch_size: optional(int.pipe(z.number().int().min(1).max(10_000))),
});

export const AUDIT_KEYS: KeyCatalog = { kind: 'audit', known: Object.keys(auditSchema.shape), unsupported: [] };

export interface AuditConfig {
  /** Write audit records to the registry database (default true); the log line is written either way. */
  readonly enabled: boolean;
  /** Records held in memory while the registry is slow or down; beyond this they are dropped and counted. */
  readonly queue_size: number;
  /** Records written per INSERT. */
  readonly batch_size: number;
}

export const DEFAULT_AUDIT: AuditConfig = { enabled: true, queue_size: 10_000, batch_size: 500 };

export function normaliseAudit(raw: z.output<typeof auditSchema> | undefined): AuditConfig {
  return {
    enabled: raw?.enabled ?? DEFAULT_AUDIT.enabled,
    queue_size: raw?.queue_size ?? DEFAULT_AUDIT.queue_size,
    batch_size: raw?.batch_size ?? DEFAULT_AUDIT.batch_size,
  };
}
