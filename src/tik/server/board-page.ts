import type { FastifyInstance } from 'fastify';
import type { TikService } from '../app/tik-service.js';
import type { SkippedTicket } from '../app/ticket-set.js';
import { authorizeRead, type Authorship } from './authorship.js';
import { errorReply } from './error-reply.js';

const esc = (s: unknown): string => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The board's rows: every ticket (settled too), and the tickets that could not be read. */
export type BoardRows = () => Promise<{ rows: readonly Record<string, unknown>[]; skipped: readonly SkippedTicket[] }>;

/** The rows of one store through the service (`ls --all`). */
export const serviceBoardRows =
  (svc: TikService): BoardRows =>
  async () => {
    const r = await svc.ls({ all: true });
    return { rows: r.value.rows, skipped: r.value.skipped };
  };

/**
 * `GET /`: a simple board (every ticket, its current stages), from the same rows as `tik ls --all
 * --json` (`rows` may gather them from every shard). A ticket that cannot be read is named under
 * the table; it never empties the board.
 */
export function boardPage(rowsOf: BoardRows, authorship: Authorship, hidden: readonly string[]) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/', async (req, res) => {
      let rows: readonly Record<string, unknown>[] = [];
      let skipped: readonly SkippedTicket[] = [];
      let problem = '';
      try {
        authorizeRead(authorship, req);
        ({ rows, skipped } = await rowsOf());
      } catch (e) {
        const r = errorReply(e, hidden);
        if (r.status === 401) return res.code(401).send(r.body);
        problem = `<p class="error">${esc(`${r.body.error.code}: ${r.body.error.message}`)}</p>`;
      }
      const body = rows
        .map((t) => `<tr><td><a href="/api/status/${esc(t.ticket)}"><code>${esc(String(t.ticket).slice(0, 8))}</code></a></td><td>${esc(t.title)}</td><td>${esc((t.current as string[]).join(' '))}</td><td>${t.settled ? 'settled' : ''}</td><td>${esc(t.updated)}</td></tr>`)
        .join('\n');
      const bad = skipped.length === 0 ? '' : `<h2>Unreadable tickets</h2><ul>${skipped.map((s) => `<li><code>${esc(s.ticket)}</code> ${esc(s.code)}: ${esc(s.message)}</li>`).join('')}</ul>`;
      return res
        .type('text/html; charset=utf-8')
        .send(
          `<!doctype html><html><head><meta charset="utf-8"><title>tik board</title><style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:left}</style></head><body><h1>tik board</h1>${problem}<table><tr><th>ticket</th><th>title</th><th>current</th><th></th><th>updated</th></tr>\n${body}\n</table>${bad}</body></html>\n`,
        );
    });
  };
}
