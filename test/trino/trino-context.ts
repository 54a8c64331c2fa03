/** The Trino of this run (started by the global setup, maybe still booting), for the trino tests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { TrinoInfo } from '../support/provided.js';
import { waitTrinoReady } from '../support/trino.js';

export type ReadyTrino = Extract<TrinoInfo, { url: string }>;

export function trinoInfo(): TrinoInfo {
  return inject('trino');
}

export function trinoAvailable(): boolean {
  return 'url' in trinoInfo();
}

function tail(dir: string | undefined): string {
  if (dir === undefined) return '';
  try {
    return readFileSync(join(dir, 'server.log'), 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '';
  }
}

/** Wait for the coordinator (polling; the deadline only guards against a hang). */
export async function readyTrino(): Promise<ReadyTrino> {
  const info = trinoInfo();
  if (!('url' in info)) throw new Error(`Trino is missing: ${info.missing}`);
  try {
    await waitTrinoReady(info.url, 840_000, info.logDir);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- coordinator log ---\n${tail(info.logDir)}`, { cause: e });
  }
  return info;
}
