import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildTikServer } from '../../src/tik/server/index.js';
import { FileStore } from '../../src/tik/store/file/file-store.js';
import { benchStore, benchTicket, writeTicket } from './fixture.js';
import { interleaved, type BenchResult } from './measure.js';

/**
 * The browser board's read (`GET /api/board?all=true`: every ticket derived and explained for its
 * blockers) against the listing the old bare board was built from (`GET /api/ls?all=true`, served
 * from the derived index) and against the same listing without the index (`TIK_INDEX=off`: every
 * ticket derived), over N tickets of 3 events, in process (`app.inject`), interleaved (./measure.ts).
 * Standalone: `npm run build && node dist/bench/tik/board-api.js [--quick]`.
 */
export async function benchBoardApi(tickets = 2000, runs = 3): Promise<BenchResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'tik-bench-board-'));
  try {
    const def = benchStore(root);
    for (let i = 0; i < tickets; i++) writeTicket(root, def, benchTicket(i + 1), 3);
    const env = { TIK_NOW: '2026-07-09T00:00:00Z', HOME: root };
    const indexed = await buildTikServer({ root, store: new FileStore(root), env });
    const plain = await buildTikServer({ root, store: new FileStore(root), env: { ...env, TIK_INDEX: 'off' } });
    try {
      const get = (server: typeof indexed, url: string, count: (body: unknown) => number) => async () => {
        const r = await server.app.inject({ method: 'GET', url });
        if (r.statusCode !== 200 || count(JSON.parse(r.body)) !== tickets) throw new Error(`${url} answered ${r.statusCode} in the benchmark`);
      };
      const rows = (b: unknown): number => (b as unknown[]).length;
      const cards = (b: unknown): number => (b as { cards: unknown[] }).cards.length;
      const [ls, lsOff, board] = await interleaved(runs, [get(indexed, '/api/ls?all=true', rows), get(plain, '/api/ls?all=true', rows), get(indexed, '/api/board?all=true', cards)]);
      const what = `${tickets} tickets × 3 events`;
      return [
        { name: `GET /api/board?all=true, ${what}`, floorMs: ls!, ms: board!, note: 'floor: GET /api/ls?all=true through the derived index (the old board)' },
        { name: `GET /api/board?all=true, ${what}`, floorMs: lsOff!, ms: board!, note: 'floor: GET /api/ls?all=true with TIK_INDEX=off (every ticket derived)' },
      ];
    } finally {
      await indexed.close();
      await plain.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  for (const r of await benchBoardApi(quick ? 500 : 2000, quick ? 3 : 5)) {
    process.stdout.write(`${r.name}: ${r.ms.toFixed(1)} ms; floor ${r.floorMs.toFixed(1)} ms → ${(r.ms / r.floorMs).toFixed(2)}× (${r.note})\n`);
  }
}
