import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TikService } from '../../../src/tik/app/tik-service.js';
import { WriterClock } from '../../../src/tik/app/writer-clock.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { T0, cleanup, supportStore, tik } from '../cli/harness.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

async function service(dir: string): Promise<TikService> {
  return new TikService({ store: await openFileStore(dir), clock: WriterClock.fromEnv({ TIK_NOW: T0 }, () => 0), mintId: () => '0b0e5d1c-0000-4000-8000-00000000ffff' });
}

describe('one loader: a single-ticket read and a listing judge a ticket by the same rules', () => {
  it('an archived definition that does not hash to its name fails status and is skipped by ls with the same code (ls used to fall back to the named file)', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const ticket = (await tik(dir, ['new', 'support-request'])).stdout.trim();
    const hash = (JSON.parse((await tik(dir, ['status', ticket, '--json'])).stdout) as { process: { hash: string } }).process.hash;
    const archived = join(dir, 'processes', 'by-hash', `${hash}.edn`);
    writeFileSync(archived, readFileSync(archived, 'utf8').replace(':process/version 1', ':process/version 2'));
    const svc = await service(dir);
    await expect(svc.status(ticket)).rejects.toMatchObject({ code: 'process/hash-mismatch' });
    const ls = await svc.ls({ all: true });
    expect(ls.value.rows).toEqual([]);
    expect(ls.value.skipped.map((s) => [s.ticket, s.code])).toEqual([[ticket, 'process/hash-mismatch']]);
  });

  it('a named fallback whose hash differs from the pin warns in status and in ls alike', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const ticket = (await tik(dir, ['new', 'support-request'])).stdout.trim();
    const hash = (JSON.parse((await tik(dir, ['status', ticket, '--json'])).stdout) as { process: { hash: string } }).process.hash;
    rmSync(join(dir, 'processes', 'by-hash', `${hash}.edn`));
    const named = join(dir, 'processes', 'support-request.edn');
    writeFileSync(named, readFileSync(named, 'utf8').replace(':process/version 1', ':process/version 2'));
    const svc = await service(dir);
    const status = await svc.status(ticket);
    expect(status.warnings.join('\n')).toMatch(/is not archived; using processes\/support-request\.edn .* which differs/);
    const ls = await svc.ls({ all: true });
    expect(ls.value.rows.map((r) => r.ticket)).toEqual([ticket]);
    expect(ls.warnings.join('\n')).toMatch(new RegExp(`ticket ${ticket}: the pinned definition ${hash} is not archived`));
  });

  it('every operation returns {value, warnings}; a write names the actor it was given and nothing else', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const svc = await service(dir);
    const created = await svc.create({ actor: 'ana', process: 'support-request', title: 't' });
    expect(created.warnings).toEqual([]);
    const set = await svc.assert({ actor: 'ana', ticket: created.value.ticket.slice(0, 8), facts: [{ key: 'category', value: 'technical' }] });
    expect(set.value.events.map((e) => e.type)).toEqual([':fact/assert']);
    const log = await svc.log(created.value.ticket);
    expect((log.value.json as { actor: string }[]).map((e) => e.actor)).toEqual(['ana', 'ana']);
    await expect(svc.create({ actor: '*', process: 'support-request' })).rejects.toMatchObject({ code: 'cli/usage' });
  });
});

describe('reads touch one ticket', () => {
  it('a full ticket id is read without listing the store; a prefix still resolves', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const ticket = (await tik(dir, ['new', 'support-request'])).stdout.trim();
    const store = await openFileStore(dir);
    let listings = 0;
    const counted = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'ticketIds') return async () => (listings++, target.ticketIds());
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const svc = new TikService({ store: counted, clock: WriterClock.fromEnv({ TIK_NOW: T0 }, () => 0), mintId: () => 'unused' });
    expect((await svc.status(ticket.toUpperCase())).value.json.ticket).toBe(ticket);
    await svc.assert({ actor: 'seb', ticket, facts: [{ key: 'category', value: 'technical' }] });
    expect(listings).toBe(0);
    expect((await svc.status(ticket.slice(0, 8))).value.json.ticket).toBe(ticket);
    expect(listings).toBe(1);
    await expect(svc.status('0b0e5d1c-0000-4000-8000-0000000fffff')).rejects.toMatchObject({ code: 'ticket/unknown' });
  });
});
