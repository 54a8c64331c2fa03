import { cpSync, existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distBin, startServer, type ServerProcess } from '../../../support/processes.js';
import { cleanup, supportStore, tempDir, tik, tikDist } from '../../../tik/cli/harness.js';

// Partial logs (tik-model.md §3.7, issue 5 acceptance): a replica missing an ancestor says so
// (`missingParents`) instead of presenting the spurious conflict the gap creates as the answer.
// Two asserts of one fact are ordered through an event in between; a replica without that event
// sees them as concurrent. Checked through a real `tik serve` and the CLI on the same store, then
// healed by a sync with a complete replica.

const dirs: string[] = [];
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill();
  dirs.forEach(cleanup);
});

const freePort = (): Promise<number> =>
  new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });

async function serve(root: string): Promise<ServerProcess> {
  const port = await freePort();
  const s = await startServer(['--root', root, 'serve', '--port', String(port), '--interval', '3600'], { cwd: root, port, readyPath: '/health', system: 'tik', env: { HOME: root } });
  servers.push(s);
  return s;
}

interface StatusJson {
  ticket: string;
  missingParents: string[];
  facts: Record<string, { status: string; value?: string }>;
}

async function write(root: string, at: string, args: string[]): Promise<string> {
  const r = await tik(root, [...args, '--json'], { TIK_NOW: at });
  if (r.code !== 0) throw new Error(`tik ${args.join(' ')}: ${r.stderr}`);
  const body = JSON.parse(r.stdout) as { ticket: string; events?: { id: string }[]; event?: string };
  return body.events?.[0]?.id ?? body.event ?? body.ticket;
}

describe('a replica missing an ancestor event', () => {
  it('reports missingParents with the spurious conflict, through tik serve and tik status, until a sync heals it', async () => {
    expect(existsSync(distBin('tik')), 'build first: npm run build').toBe(true);
    const full = await supportStore();
    dirs.push(full);
    const r = await tik(full, ['new', 'support-request', '--title', 'login broken', '--json'], { TIK_NOW: '2026-07-08T10:00:00Z' });
    const ticket = (JSON.parse(r.stdout) as { ticket: string }).ticket;
    await write(full, '2026-07-08T10:01:00Z', ['set', ticket, 'priority=:low']);
    // the event between the two asserts: the second assert's only parent
    const middle = await write(full, '2026-07-08T10:02:00Z', ['comment', ticket, 'raising it: the whole team is locked out']);
    await write(full, '2026-07-08T10:03:00Z', ['set', ticket, 'priority=:high']);

    const partial = tempDir('tik-partial-');
    dirs.push(partial);
    cpSync(full, partial, { recursive: true });
    const middleFile = join(partial, 'tickets', ticket, 'events', `${middle}.edn`);
    expect(existsSync(middleFile)).toBe(true);
    rmSync(middleFile);

    const at = encodeURIComponent('2026-07-08T11:00:00Z');
    const fullServer = await serve(full);
    const partialServer = await serve(partial);

    // the complete replica: the second assert supersedes the first
    const settled = (await (await fetch(`${fullServer.url}/api/status/${ticket}?at=${at}`)).json()) as StatusJson;
    expect(settled.missingParents).toEqual([]);
    expect(settled.facts.priority).toMatchObject({ status: 'present', value: ':high' });

    // the partial replica: the two asserts look concurrent, and it says why it cannot tell
    const res = await fetch(`${partialServer.url}/api/status/${ticket}?at=${at}`);
    expect(res.status).toBe(200);
    const gap = (await res.json()) as StatusJson;
    expect(gap.missingParents).toEqual([middle]);
    expect(gap.facts.priority!.status).toBe('conflicted');

    // the CLI on that store answers the same, warns, and the human view says INCOMPLETE
    const cli = await tik(partial, ['status', ticket, '--at', '2026-07-08T11:00:00Z', '--json']);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(gap);
    expect(cli.stderr).toMatch(/INCOMPLETE|missing/i);
    const human = await tik(partial, ['status', ticket, '--at', '2026-07-08T11:00:00Z']);
    expect(human.stdout).toMatch(new RegExp(`log: INCOMPLETE, 1 parent event\\(s\\) missing: ${middle}`));
    // the cross-ticket listing says so too: ls --json (and the replica's /api/ls) name the gap, the human list marks it
    const listed = (await (await fetch(`${partialServer.url}/api/ls?all=true`)).json()) as { ticket: string; missingParents: string[] }[];
    expect(listed.find((r) => r.ticket === ticket)?.missingParents).toEqual([middle]);
    expect((await tik(partial, ['ls', '--all'])).stdout).toMatch(new RegExp(`${ticket.slice(0, 8)} .*\\[INCOMPLETE log\\]`));

    // a sync with the complete replica brings the missing event; the conflict was spurious
    const sync = tikDist(partial, ['--root', partial, 'sync', fullServer.url, '--pull', '--json']);
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ pulled: 1 });
    const healed = (await (await fetch(`${partialServer.url}/api/status/${ticket}?at=${at}`)).json()) as StatusJson;
    expect(healed).toEqual(settled);
    const relisted = (await (await fetch(`${partialServer.url}/api/ls?all=true`)).json()) as { ticket: string; missingParents: string[] }[];
    expect(relisted.find((r) => r.ticket === ticket)?.missingParents).toEqual([]);
  });
});
