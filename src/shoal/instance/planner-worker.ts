/**
 * A planner thread (planner-pool.ts): plans one request at a time against the catalog it was
 * last sent, and answers with the plan or the error's fields. It holds no state but that catalog.
 */
import { parentPort } from 'node:worker_threads';
import type { GovernanceCatalog } from '../sql/index.js';
import { errorFields, governanceOf, runPlanJob } from './plan-job.js';
import type { PlannerReply, PlannerRequest } from './planner-pool.js';

const port = parentPort;
if (!port) throw new Error('planner-worker.js runs only as a worker thread');

let current: { readonly generation: number; readonly governance: GovernanceCatalog } | undefined;

port.on('message', (m: PlannerRequest) => {
  let reply: PlannerReply;
  try {
    if (m.model !== undefined) current = { generation: m.generation, governance: governanceOf(m.model) };
    if (current?.generation !== m.generation) throw new Error(`no catalog for generation ${m.generation}`);
    reply = { id: m.id, ok: true, outcome: runPlanJob(m.job, current.governance) };
  } catch (e) {
    reply = { id: m.id, ok: false, error: errorFields(e) };
  }
  port.postMessage(reply);
});
