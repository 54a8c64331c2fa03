import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 13: keywords were interned forever, so refused pushes full of fresh keywords leaked
// memory. A real process (the compiled module, `--expose-gc`) reads 50,000 refused texts of
// fresh keywords; once they are collected the intern tables are back near their size before.

const MODULE = resolve(process.cwd(), 'dist/src/tik/edn/value.js');
const READER = resolve(process.cwd(), 'dist/src/tik/edn/read.js');

describe('interning is bounded', () => {
  it('keywords of refused input are not kept once nothing holds them', () => {
    expect(existsSync(MODULE)).toBe(true); // npm run build first
    const script = `
      const { internedCount } = await import(${JSON.stringify(MODULE)});
      const { readEdn } = await import(${JSON.stringify(READER)});
      const before = internedCount();
      for (let i = 0; i < 50000; i++) {
        try { readEdn('[:fresh/k' + i + ' sym' + i + ' 1.5]'); } catch {}
      }
      const grown = internedCount();
      for (let i = 0; i < 10; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 10)); }
      console.log(JSON.stringify({ before, grown, after: internedCount() }));
    `;
    const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const { before, grown, after } = JSON.parse(r.stdout) as { before: number; grown: number; after: number };
    expect(grown).toBeGreaterThan(before); // they were interned while alive
    expect(after - before).toBeLessThan(25_000); // at most the reader's bounded cache of short tokens stays
  }, 30_000);
});
