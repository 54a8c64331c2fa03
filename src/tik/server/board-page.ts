import type { FastifyInstance } from 'fastify';
import { UI_SCRIPT } from './ui-script.js';
import { UI_STYLE } from './ui-style.js';

/**
 * The page every browser route serves: a shell that loads our own script and stylesheet. It holds
 * no ticket data, so it needs no token: under `--tokens` the script asks for one and fetches the
 * board, the ticket pages and the inbox from the JSON API with it.
 */
const SHELL =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">' +
  '<title>tik board</title><link rel="icon" href="/ui/icon.svg"><link rel="stylesheet" href="/ui/style.css"><script src="/ui/app.js" defer></script></head>' +
  '<body><header><span class="brand">tik</span><nav><a href="#/">Board</a><a href="#/inbox">Inbox</a></nav><span class="who" id="who"></span></header>' +
  '<main id="main"><noscript>This board needs JavaScript. The same data is at /api/board (JSON); <code>tik board</code> writes a static page.</noscript></main></body></html>\n';

/** The tab's icon: a check mark on the board's accent colour. */
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0e7490"/><path d="M4 8.5l2.5 2.5L12 5" fill="none" stroke="#fff" stroke-width="2"/></svg>\n';

/**
 * `GET /` (the board, the ticket pages `#/t/<id>` and the inbox `#/inbox`, one page routed by its
 * fragment), `GET /ui/app.js` and `GET /ui/style.css`. The data comes from `/api/board`,
 * `/api/ticket-view/:ticket`, `/api/next` and `/api/whoami`; writes go through the typed write API.
 */
export function boardPage() {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/', async (_req, res) => res.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(SHELL));
    app.get('/ui/app.js', async (_req, res) => res.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(UI_SCRIPT));
    app.get('/ui/icon.svg', async (_req, res) => res.type('image/svg+xml').header('cache-control', 'max-age=86400').send(ICON));
    app.get('/ui/style.css', async (_req, res) => res.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(UI_STYLE));
  };
}
