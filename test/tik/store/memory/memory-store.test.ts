import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../../src/tik/store/memory/memory-store.js';
import { describeEventStoreContract, eventBytesFor, idOf } from '../event-store-contract.js';

const T = '018f2f6e-7c1a-7000-8000-000000000001';

describeEventStoreContract('memory', async () => {
  const store = new MemoryStore();
  return { store, cleanup: async () => undefined, second: async () => store.handle() };
});

describe('memory store', () => {
  it('no caller can change stored bytes through the arrays it passed or received', async () => {
    const s = new MemoryStore();
    const b = Buffer.from(eventBytesFor(1));
    const id = idOf(b);
    await s.append(T, id, b);
    b[0] = 0x20; // the caller's array
    const out = (await s.eventBytes(T, id))!;
    out[1] = 0x20; // a returned array
    expect(idOf((await s.eventBytes(T, id))!)).toBe(id);
    expect(idOf((await s.events(T))[0]!.bytes)).toBe(id);
  });

  it('two stores are independent; a handle shares its store', async () => {
    const a = new MemoryStore();
    const b = new MemoryStore();
    const e = eventBytesFor(2);
    await a.append(T, idOf(e), e);
    expect(await b.hasEvent(T, idOf(e))).toBe(false);
    expect(await a.handle().hasEvent(T, idOf(e))).toBe(true);
  });

  it('roles and actors written as side files read back', async () => {
    const s = new MemoryStore();
    await s.writeSideFile('roles.edn', Buffer.from('{:triager {:members ["seb"]}}'));
    expect(await s.readRolesRegister()).toBe('{:triager {:members ["seb"]}}');
    expect(await s.readActors()).toEqual([]);
  });
});
