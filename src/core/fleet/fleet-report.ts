/** Human output of `fleet up|status|down`, the same for shoal and tik (`--json` prints the objects). */
import type { DownReport, FleetStatus } from './fleet.js';
import type { FleetState } from './fleet-state.js';

export function renderUp(state: FleetState, dir: string): string {
  const lines = [`${state.system} fleet of ${state.members.length} up behind HAProxy at http://127.0.0.1:${state.port} (pid ${state.haproxy.pid})`];
  for (const m of state.members) lines.push(`  ${m.name.padEnd(10)} pid ${String(m.pid).padEnd(8)} http://127.0.0.1:${m.port}`);
  lines.push(`state and logs: ${dir} (fleet status --dir ${dir}; fleet down --dir ${dir})`);
  return `${lines.join('\n')}\n`;
}

export function renderStatus(s: FleetStatus): string {
  const lines = [`${s.system} fleet at ${s.url}: balancer ${s.balancer.running ? `running (pid ${s.balancer.pid})` : 'NOT running'}`];
  lines.push(`  ${'member'.padEnd(10)} ${'pid'.padEnd(8)} ${'port'.padEnd(6)} ${'/ready'.padEnd(12)} haproxy`);
  for (const m of s.members) {
    const lb = m.balancer ? `${m.balancer.status} (check ${m.balancer.check || '-'}, ${m.balancer.sessions} requests)` : '-';
    lines.push(`  ${m.name.padEnd(10)} ${String(m.pid ?? '-').padEnd(8)} ${String(m.port).padEnd(6)} ${m.ready.padEnd(12)} ${lb}`);
  }
  return `${lines.join('\n')}\n`;
}

export function renderDown(r: DownReport): string {
  const parts = [`stopped ${r.stopped.length}${r.stopped.length ? ` (${r.stopped.join(', ')})` : ''}`];
  if (r.killed.length) parts.push(`killed after the bound ${r.killed.length} (${r.killed.join(', ')})`);
  parts.push(r.balancerStopped ? 'balancer stopped' : 'balancer was not running');
  return `${parts.join('; ')}\n`;
}
