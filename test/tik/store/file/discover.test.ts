import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectLayout, discoverRoot } from '../../../../src/tik/store/file/discover.js';

let top: string;
beforeEach(() => {
  top = mkdtempSync(join(tmpdir(), 'tik-discover-'));
});
afterEach(() => rmSync(top, { recursive: true, force: true }));

function dirs(...parts: string[]): string {
  const d = join(top, ...parts);
  mkdirSync(d, { recursive: true });
  return d;
}

describe('discoverRoot', () => {
  it('TIK_ROOT wins, resolved against the working directory', () => {
    const cwd = dirs('home', 'me', 'work');
    dirs('home', 'me', 'work', 'tickets');
    expect(discoverRoot(cwd, { TIK_ROOT: '/elsewhere', HOME: join(top, 'home', 'me') })).toBe('/elsewhere');
    expect(discoverRoot(cwd, { TIK_ROOT: 'sub', HOME: join(top, 'home', 'me') })).toBe(join(cwd, 'sub'));
  });

  it('an empty TIK_ROOT is ignored', () => {
    const cwd = dirs('home', 'me', 'proj');
    dirs('home', 'me', 'proj', 'tickets');
    expect(discoverRoot(cwd, { TIK_ROOT: '', HOME: join(top, 'home', 'me') })).toBe(cwd);
  });

  it('finds the nearest ancestor holding tickets/, .tik/ or tik.db', () => {
    const home = dirs('home', 'me');
    const proj = dirs('home', 'me', 'proj');
    const deep = dirs('home', 'me', 'proj', 'src', 'deep');
    dirs('home', 'me', 'proj', 'tickets');
    expect(discoverRoot(deep, { HOME: home })).toBe(proj);

    const hidden = dirs('home', 'me', 'hid');
    dirs('home', 'me', 'hid', '.tik');
    expect(discoverRoot(dirs('home', 'me', 'hid', 'a'), { HOME: home })).toBe(hidden);

    const sql = dirs('home', 'me', 'sql');
    writeFileSync(join(sql, 'tik.db'), '');
    expect(discoverRoot(dirs('home', 'me', 'sql', 'x', 'y'), { HOME: home })).toBe(sql);
  });

  it('the nearest marker wins over a farther one', () => {
    const home = dirs('home', 'me');
    dirs('home', 'me', 'outer', 'tickets');
    const inner = dirs('home', 'me', 'outer', 'inner');
    dirs('home', 'me', 'outer', 'inner', '.tik');
    expect(discoverRoot(dirs('home', 'me', 'outer', 'inner', 'z'), { HOME: home })).toBe(inner);
  });

  it('$HOME itself counts, but nothing above it does', () => {
    dirs('home', 'tickets'); // above $HOME: must not be found
    const home = dirs('home', 'me');
    const cwd = dirs('home', 'me', 'a', 'b');
    expect(discoverRoot(cwd, { HOME: home })).toBe(cwd);
    dirs('home', 'me', 'tickets');
    expect(discoverRoot(cwd, { HOME: home })).toBe(home);
  });

  it('a tik.db directory or a tickets file is not a marker', () => {
    const home = dirs('home', 'me');
    dirs('home', 'me', 'p', 'tik.db');
    writeFileSync(join(dirs('home', 'me', 'p'), 'tickets'), '');
    const cwd = dirs('home', 'me', 'p', 'q');
    expect(discoverRoot(cwd, { HOME: home })).toBe(cwd);
  });

  it('law: the root is the nearest marked ancestor-or-self at or below $HOME, else the cwd', () => {
    const markers = fc.constantFrom('tickets', '.tik', 'tik.db');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }), // how far $HOME is below top
        fc.integer({ min: 0, max: 5 }), // how far cwd is below $HOME
        fc.array(fc.tuple(fc.integer({ min: 0, max: 10 }), markers), { maxLength: 4 }),
        (homeDepth, cwdDepth, marks) => {
          const base = mkdtempSync(join(top, 'law-'));
          const levels = Array.from({ length: homeDepth + cwdDepth + 1 }, (_, i) => join(base, ...Array.from({ length: i }, (_, j) => `d${j}`)));
          mkdirSync(levels[levels.length - 1]!, { recursive: true });
          for (const [at, m] of marks) {
            const dir = levels[at % levels.length]!;
            if (m === 'tik.db') writeFileSync(join(dir, m), '');
            else mkdirSync(join(dir, m), { recursive: true });
          }
          const home = levels[homeDepth]!;
          const cwd = levels[levels.length - 1]!;
          const marked = new Set(marks.map(([at]) => at % levels.length));
          let want = cwd;
          for (let i = levels.length - 1; i >= homeDepth; i--) {
            if (marked.has(i)) {
              want = levels[i]!;
              break;
            }
          }
          expect(discoverRoot(cwd, { HOME: home })).toBe(want);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('falls back to the working directory', () => {
    const cwd = dirs('home', 'me', 'nothing');
    expect(discoverRoot(cwd, { HOME: join(top, 'home', 'me') })).toBe(cwd);
  });
});

describe('detectLayout', () => {
  it('tells a visible, hidden, SQLite and empty root apart', () => {
    const vis = dirs('vis');
    dirs('vis', 'tickets');
    expect(detectLayout(vis)).toEqual({ kind: 'file', root: vis, base: vis, hidden: false });
    const hid = dirs('hid');
    dirs('hid', '.tik');
    expect(detectLayout(hid)).toEqual({ kind: 'file', root: hid, base: join(hid, '.tik'), hidden: true });
    const sql = dirs('sql');
    writeFileSync(join(sql, 'tik.db'), '');
    expect(detectLayout(sql)).toEqual({ kind: 'sqlite', root: sql, path: join(sql, 'tik.db') });
    expect(detectLayout(dirs('empty'))).toEqual({ kind: 'none', root: join(top, 'empty') });
  });

  it('refuses tik.db beside tickets/', () => {
    const both = dirs('both');
    dirs('both', 'tickets');
    writeFileSync(join(both, 'tik.db'), '');
    expect(() => detectLayout(both)).toThrow(expect.objectContaining({ code: 'store/ambiguous-layout' }));
  });
});
