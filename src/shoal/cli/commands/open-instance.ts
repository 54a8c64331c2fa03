import { dirname, resolve } from 'node:path';
import { loadConfig } from '../../config/load-config.js';
import { formatIssue } from '../../config/config-issue.js';
import type { ShoalConfig } from '../../config/model.js';
import { ShoalInstance } from '../../instance/instance.js';

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

/** Load a config file and start an instance over it; config warnings go to stderr. */
export async function openInstance(configPath: string, opts: { pollMs?: number; quiet?: boolean; plannerThreads?: number } = {}): Promise<ShoalInstance> {
  return startInstance(readInstanceConfig(configPath, opts), opts);
}

/** Start an instance over a loaded config. */
export async function startInstance({ config, baseDir }: InstanceConfig, opts: { pollMs?: number; plannerThreads?: number } = {}): Promise<ShoalInstance> {
  return ShoalInstance.start({
    config,
    baseDir,
    ...(opts.pollMs === undefined ? {} : { pollMs: opts.pollMs }),
    ...(opts.plannerThreads === undefined ? {} : { plannerThreads: opts.plannerThreads }),
    onError: (e) => process.stderr.write(`shoal: ${(e as Error).message}\n`),
  });
}

/** `--var k=v` (repeatable) into a session-variable map. */
export function collectVar(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const i = value.indexOf('=');
  if (i <= 0) throw new Error(`--var expects name=value, got "${value}"`);
  return { ...previous, [value.slice(0, i)]: value.slice(i + 1) };
}
