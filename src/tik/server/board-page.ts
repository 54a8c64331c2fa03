import type { FastifyInstance } from 'fastify';
import { runVerb, type VerbEnv, type VerbResult } from './run-verb.js';

const esc = (s: unknown): string => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * `GET /`: a simple board (every ticket, its current stages), rendered from `tik ls --all --json`
 * (`lsAll` gives those rows another way, e.g. gathered from every shard).
 */
export function boardPage(v: VerbEnv, lsAll: () => Promise<VerbResult> = () => runVerb(v, undefined, ['ls', '--all', '--json'])) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/', async (_req, res) => {
      const r = await lsAll();
      const rows = r.code === 0 ? (JSON.parse(r.stdout) as { ticket: string; title: string; current: string[]; settled: boolean; updated: string | null }[]) : [];
      const body = rows
        .map((t) => `<tr><td><a href="/api/status/${esc(t.ticket)}"><code>${esc(t.ticket.slice(0, 8))}</code></a></td><td>${esc(t.title)}</td><td>${esc(t.current.join(' '))}</td><td>${t.settled ? 'settled' : ''}</td><td>${esc(t.updated)}</td></tr>`)
        .join('\n');
      const problem = r.code === 0 ? '' : `<p class="error">${esc(r.stderr)}</p>`;
      return res
        .type('text/html; charset=utf-8')
        .send(
          `<!doctype html><html><head><meta charset="utf-8"><title>tik board</title><style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:left}</style></head><body><h1>tik board</h1>${problem}<table><tr><th>ticket</th><th>title</th><th>current</th><th></th><th>updated</th></tr>\n${body}\n</table></body></html>\n`,
        );
    });
  };
}
