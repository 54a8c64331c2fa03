import { dirname, resolve } from 'node:path';
import { loadConfig } from '../../check/load-config.js';
import { formatIssue } from '../../config/config-issue.js';
import type { ShoalConfig } from '../../config/model.js';
import { ShoalInstance, type InstanceOptions } from '../../instance/instance.js';

/** What a command may choose about the instance it starts (the rest comes from the config). */
export type StartOptions = Pick<InstanceOptions, 'pollMs' | 'importConfig' | 'registryUrl' | 'mv' | 'plannerThreads'>;

/** A loaded config and the directory its relative paths are relative to. */
export interface InstanceConfig {
  readonly config: ShoalConfig;
  readonly baseDir: string;
}

/** Load a config file; its warnings go to stderr unless quiet. */
export function readInstanceConfig(configPath: string, opts: { quiet?: boolean } = {}): InstanceConfig {
  const path = resolve(configPath);
  const { config, warnings } = loadConfig({ path });
  if (!opts.quiet) for (const w of warnings) process.stderr.write(`warning: ${formatIssue(w)}\n`);
  return { config, baseDir: dirname(path) };
}

/** Start an instance over a loaded config; background errors go to stderr. */
export async function startInstance({ config, baseDir }: InstanceConfig, opts: StartOptions = {}): Promise<ShoalInstance> {
  const chosen = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) as StartOptions;
  return ShoalInstance.start({
    config,
    baseDir,
    ...chosen,
    onError: (e) => process.stderr.write(`shoal: ${(e as Error).message}\n`),
  });
}

/** `--var k=v` (repeatable) into a session-variable map. */
export function collectVar(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const i = value.indexOf('=');
  if (i <= 0) throw new Error(`--var expects name=value, got "${value}"`);
  return { ...previous, [value.slice(0, i)]: value.slice(i + 1) };
}
