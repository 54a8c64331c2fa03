/**
 * A real instance (registry, DuckDB, SQL pipeline) behind its HTTP API, over files written into a
 * fresh directory: the harness of the tests that check what a client is answered end to end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../src/shoal/server/app.js';

export interface HttpInstance {
  readonly dir: string;
  readonly instance: ShoalInstance;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** Makes a new directory, lets `prepare` write its files and `shoal.yaml` there, and starts the instance and its app on it. */
export async function startHttpInstance(prefix: string, prepare: (dir: string) => void | Promise<void>): Promise<HttpInstance> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  await prepare(dir);
  const { config } = loadConfig({ path: join(dir, 'shoal.yaml') });
  const instance = await ShoalInstance.start({ config, baseDir: dir });
  const app = await buildApp({ service: instance });
  return {
    dir,
    instance,
    app,
    close: async () => {
      await app.close();
      await instance.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
