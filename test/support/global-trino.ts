/**
 * Vitest global setup for the `trino` project: start a Trino coordinator and one worker from the
 * ~/.m2 artifacts (or take TRINO_URL), without waiting for them, so their boot overlaps the other
 * projects' tests; the trino tests wait (waitTrinoReady). With CI=true a missing Trino fails the run.
 */
import type { TestProject } from 'vitest/node';
import type { TrinoInfo } from './provided.js';
import { startTrinoNode, trinoMissing, type TrinoNode } from './trino.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.TRINO_URL;
  if (given !== undefined && given !== '') {
    project.provide('trino', { url: given.replace(/\/+$/, '') } satisfies TrinoInfo);
    return async () => undefined;
  }
  const missing = trinoMissing();
  if (missing !== undefined) {
    if (process.env.CI === 'true') throw new Error(`CI=true and Trino is missing: ${missing}`);
    process.stderr.write(`\n${'!'.repeat(78)}\nTRINO MISSING — the trino tests will be SKIPPED: ${missing} (or set TRINO_URL)\n${'!'.repeat(78)}\n`);
    project.provide('trino', { missing } satisfies TrinoInfo);
    return async () => undefined;
  }
  const nodes: TrinoNode[] = [];
  const coordinator = await startTrinoNode({ nodeId: 'coordinator' });
  nodes.push(coordinator);
  // the worker boots alongside the coordinator (joining once it is up): booting it only when its
  // test runs would add a whole boot to the run
  const worker = await startTrinoNode({ nodeId: 'worker-1', coordinatorUrl: coordinator.url, heap: '1024m' });
  nodes.push(worker);
  project.provide('trino', { url: coordinator.url, logDir: coordinator.dir, worker: { url: worker.url, nodeId: worker.nodeId, logDir: worker.dir } } satisfies TrinoInfo);
  return async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
}
