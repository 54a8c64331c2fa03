import { InvalidArgumentError, type Command } from 'commander';
import { redactUrl } from '../../../core/sql/sql-url.js';
import { withAbsolutePaths } from '../../config/absolute-paths.js';
import { catalogOf } from '../../config/model.js';
import { EMBEDDED_REGISTRY_URL } from '../../instance/instance.js';
import { formatPlan, type PlanEntry } from '../../registry/catalog-plan.js';
import { openRegistry } from '../../registry/open-registry.js';
import type { Registry } from '../../registry/registry.js';
import { registryHoldsCatalog } from '../../registry/registry-exists.js';
import { readInstanceConfig, type InstanceConfig } from './open-instance.js';

/** `--json` of `shoal registry plan`. */
export interface PlanOutput {
  readonly registry: string;
  /** The epoch the plan was computed at (0: the registry holds no catalog yet). */
  readonly epoch: number;
  readonly entries: readonly PlanEntry[];
  readonly summary: { readonly add: number; readonly change: number; readonly delete: number };
}

/** `--json` of `shoal registry apply`. */
export interface ApplyOutput extends PlanOutput {
  readonly changed: boolean;
  /** The epoch before the apply (`epoch` is the one after). */
  readonly previous_epoch: number;
}

function summary(entries: readonly PlanEntry[]): PlanOutput['summary'] {
  const n = (a: PlanEntry['action']) => entries.filter((e) => e.action === a).length;
  return { add: n('add'), change: n('change'), delete: n('delete') };
}

function describe(o: PlanOutput): string {
  const s = o.summary;
  return `${s.add} to add, ${s.change} to change, ${s.delete} to delete`;
}

/** The registry a config names, and its catalog with paths made absolute (as the registry keeps them). */
function target(loaded: InstanceConfig): { readonly url: string; readonly catalog: ReturnType<typeof catalogOf> } {
  return {
    url: loaded.config.stateful.control_plane.tenant_url ?? EMBEDDED_REGISTRY_URL,
    catalog: withAbsolutePaths(catalogOf(loaded.config), loaded.baseDir),
  };
}

async function withRegistry<T>(url: string, baseDir: string, work: (r: Registry) => Promise<T>): Promise<T> {
  const registry = await openRegistry(url, { baseDir });
  try {
    return await work(registry);
  } finally {
    await registry.close();
  }
}

/**
 * `shoal registry plan|apply --config FILE`: the declarative control plane. `plan` prints what
 * `apply` would change (and writes nothing: a registry that does not exist is not created); `apply`
 * makes the registry exactly the file's catalog in one transaction — one epoch bump, none when
 * nothing changed — and every instance serves it within its poll interval.
 */
export function registerRegistry(program: Command): void {
  const registry = program.command('registry').description("the control-plane registry: compare it with a config file's catalog, or make it exactly that catalog");

  registry
    .command('plan')
    .description('print what `shoal registry apply` would change: additions (+), changes (~) and deletions (-) per object kind and id; writes nothing')
    .requiredOption('--config <file>', 'the YAML config file (its catalog, and the registry its control_plane.tenant_url names)')
    .option('--json', 'print {registry, epoch, entries: [{kind, id, action, detail?}], summary: {add, change, delete}}')
    .action(async (opts: { config: string; json?: boolean }) => {
      const loaded = readInstanceConfig(opts.config, { quiet: opts.json === true });
      const { url, catalog } = target(loaded);
      // a read: never create the registry; one that holds nothing plans against an empty catalog
      const holds = await registryHoldsCatalog(url, loaded.baseDir);
      const plan = await withRegistry(holds ? url : 'sqlite:///:memory:', loaded.baseDir, (r) => r.plan(catalog));
      const out: PlanOutput = { registry: redactUrl(url), epoch: plan.epoch, entries: plan.entries, summary: summary(plan.entries) };
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(out)}\n`);
        return;
      }
      if (out.entries.length === 0) {
        process.stdout.write(`no changes: the registry ${out.registry} (epoch ${out.epoch}) is exactly ${opts.config}\n`);
        return;
      }
      process.stdout.write(`registry ${out.registry} at epoch ${out.epoch}: ${describe(out)}\n${formatPlan(out.entries).join('\n')}\n`);
    });

  registry
    .command('apply')
    .description('make the registry exactly the config file\'s catalog (additions, changes and deletions) in one transaction: one epoch bump, none when nothing changed')
    .requiredOption('--config <file>', 'the YAML config file')
    .option('--expected-epoch <n>', 'apply only if the registry is still at this epoch (as `plan` printed it); otherwise exit 1 with REGISTRY_EPOCH_MISMATCH', (v) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('expected a non-negative integer');
      return Number(v);
    })
    .option('--json', 'print {registry, epoch, previous_epoch, changed, entries, summary}')
    .action(async (opts: { config: string; expectedEpoch?: number; json?: boolean }) => {
      const loaded = readInstanceConfig(opts.config, { quiet: opts.json === true });
      const { url, catalog } = target(loaded);
      const result = await withRegistry(url, loaded.baseDir, (r) => r.applyConfig(catalog, opts.expectedEpoch === undefined ? {} : { expectedEpoch: opts.expectedEpoch }));
      const out: ApplyOutput = {
        registry: redactUrl(url),
        epoch: result.epoch,
        previous_epoch: result.changed ? result.epoch - 1 : result.epoch,
        changed: result.changed,
        entries: result.entries,
        summary: summary(result.entries),
      };
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(out)}\n`);
        return;
      }
      if (!out.changed) {
        process.stdout.write(`no changes: the registry ${out.registry} (epoch ${out.epoch}) is already exactly ${opts.config}\n`);
        return;
      }
      process.stdout.write(`${formatPlan(out.entries).join('\n')}\napplied to ${out.registry}: ${describe(out)}; epoch ${out.previous_epoch} -> ${out.epoch}\n`);
    });
}
