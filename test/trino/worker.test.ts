/**
 * A worker joins the coordinator on loopback, and a query the Trino engine runs is spread over
 * both nodes: its tasks (system.runtime.tasks) ran on the coordinator and on the worker.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrinoClient } from '../../src/shoal/engine/trino/trino-client.js';
import { TrinoEngine } from '../../src/shoal/engine/trino/trino-engine.js';
import { collect, entry } from '../shoal/engine/duckdb/engine-fixtures.js';
import { until } from '../support/until.js';
import { startTrinoNode, waitTrinoReady, type TrinoNode } from '../support/trino.js';
import { readyTrino, trinoAvailable } from './trino-context.js';

describe.runIf(trinoAvailable())('a Trino cluster of two nodes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-trino-worker-'));
  let client: TrinoClient;
  let engine: TrinoEngine;
  let started: TrinoNode | undefined;
  let workerId: string;

  beforeAll(async () => {
    const info = await readyTrino();
    client = new TrinoClient({ url: info.url });
    if (info.worker) {
      // the global setup booted it alongside the coordinator (a boot here would add minutes to the run)
      workerId = info.worker.nodeId;
      await waitTrinoReady(info.worker.url, 840_000, info.worker.logDir);
    } else {
      // a coordinator given by TRINO_URL: add a worker to it now
      const { environment } = (await (await fetch(`${info.url}/v1/info`)).json()) as { environment: string };
      started = await startTrinoNode({ nodeId: `worker-${process.pid}`, coordinatorUrl: info.url, heap: '1024m', environment });
      workerId = started.nodeId;
      await waitTrinoReady(started.url, 840_000, started.dir);
    }
    await until('the worker to be active at the coordinator', async () => {
      const rows = await client.rows(`SELECT node_id FROM system.runtime.nodes WHERE state = 'active' AND NOT coordinator`);
      return rows.some((r) => r[0] === workerId) ? true : undefined;
    }, 600_000);
    const csv = join(dir, 'events.csv');
    writeFileSync(csv, 'id,kind\n' + Array.from({ length: 5000 }, (_, i) => `${i},k${i % 37}`).join('\n') + '\n');
    engine = await TrinoEngine.create({ url: info.url, scratchDir: join(dir, 'scratch') });
    expect((await engine.reconcile([entry({ id: 'wk-events', type: 'csv', path: csv }, { domain_id: 'ops', table: 'events' })])).failed).toEqual([]);
  });
  afterAll(async () => {
    await engine?.close();
    await started?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a query\'s tasks ran on the coordinator and on the worker', async () => {
    const tag = `worker-probe-${process.pid}-${Date.now()}`;
    const r = await collect(engine.execute(`SELECT kind, count(*) AS n, '${tag}' AS tag FROM wk_events."default".events GROUP BY kind`));
    expect(r.rows).toHaveLength(37);
    const [[queryId]] = (await client.rows(`SELECT query_id FROM system.runtime.queries WHERE query LIKE '%${tag}%' AND query NOT LIKE '%system.runtime%'`)) as [[string]];
    const nodes = new Set((await client.rows(`SELECT DISTINCT node_id FROM system.runtime.tasks WHERE query_id = '${queryId}'`)).map((x) => String(x[0])));
    const [[coordinatorId]] = (await client.rows('SELECT node_id FROM system.runtime.nodes WHERE coordinator')) as [[string]];
    // a coordinator given by TRINO_URL may have more workers than the one started here
    expect(nodes).toContain(coordinatorId);
    expect(nodes).toContain(workerId);
  });
});
