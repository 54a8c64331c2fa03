/**
 * The folder graph of src/shoal follows the declared layer order (src/shoal/layers.json, which
 * eslint.config.js also enforces per file): every relative import — `import`, `import type`,
 * `export … from` and dynamic `import()` — goes from a layer to one listed before it, so there
 * is no cycle. ESLint reports a back-edge at the line that writes it; this test checks the whole
 * graph, and also fails on a folder nobody placed in the order.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/shoal');
const ORDER: readonly string[] = (JSON.parse(readFileSync(join(ROOT, 'layers.json'), 'utf8')) as { order: string[] }).order;

/** One cross-layer import: the importing file (relative to src/shoal) and what it wrote. */
interface Use {
  readonly file: string;
  readonly spec: string;
}
type FolderGraph = Map<string, Map<string, Use[]>>;

/** The layer a path under src/shoal belongs to: its first folder, or a top-level file's name without `.ts`. */
function layerOf(path: string): string {
  const parts = path.split(sep);
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.(ts|js)$/, '');
}

/** Every relative import of a source text, type-only and dynamic ones included. */
function relativeImports(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName).filter((s) => s.startsWith('.'));
}

/** The folder graph of `files` (path relative to src/shoal → text); imports leaving src/shoal are not edges. */
function folderGraph(files: ReadonlyMap<string, string>): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const [file, text] of files) {
    const from = layerOf(file);
    for (const spec of relativeImports(text)) {
      const target = relative('.', join(dirname(file), spec));
      if (target.startsWith('..')) continue;
      const to = layerOf(target);
      if (to === from) continue;
      const out = graph.get(from) ?? new Map<string, Use[]>();
      graph.set(from, out);
      out.set(to, [...(out.get(to) ?? []), { file, spec }]);
    }
  }
  return graph;
}

/** The strongly connected components with more than one layer (Tarjan). */
function cycles(graph: FolderGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        component.push(w);
        if (w === v) break;
      }
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Imports that go up the order (or to or from a layer not in it), as readable lines. */
function backEdges(graph: FolderGraph, order: readonly string[]): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    for (const [to, uses] of targets) {
      const ok = order.includes(from) && order.includes(to) && order.indexOf(to) < order.indexOf(from);
      if (!ok) out.push(...uses.map((u) => `${from} → ${to}: ${u.file} imports '${u.spec}'`));
    }
  }
  return out.sort();
}

function sources(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) sources(path, out);
    else if (e.name.endsWith('.ts')) out.set(relative(ROOT, path), readFileSync(path, 'utf8'));
  }
  return out;
}

describe('the layers of src/shoal', () => {
  const files = sources(ROOT);
  const graph = folderGraph(files);

  it('places every folder and top-level file in the order, once', () => {
    const layers = [...new Set([...files.keys()].map(layerOf))].sort();
    expect([...ORDER].sort()).toEqual(layers);
    expect(new Set(ORDER).size).toBe(ORDER.length);
  });

  it('has no folder cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('imports only from lower layers', () => {
    expect(backEdges(graph, ORDER)).toEqual([]);
  });

  it('reads every kind of import, so a back-edge of any kind is caught', () => {
    // a small tree with one back-edge of each kind, and a cycle between two folders
    const planted = new Map([
      ['config/model.ts', "import { x } from '../sql/parse.js';"],
      ['sql/parse.ts', "import type { Y } from '../mv/y.js';\nexport { z } from '../config/model.js';"],
      ['sources/pool.ts', "const m = await import('../engine/engine.js');"],
      ['engine/duckdb/engine.ts', "import {\n  a,\n  b,\n} from '../../sources/pool.js';\nimport '../../../core/hash.js';"],
    ]);
    const g = folderGraph(planted);
    expect(backEdges(g, ORDER)).toEqual([
      "config → sql: config/model.ts imports '../sql/parse.js'",
      "sources → engine: sources/pool.ts imports '../engine/engine.js'",
      "sql → mv: sql/parse.ts imports '../mv/y.js'",
    ]);
    expect(cycles(g).map((c) => c.join(' ')).sort()).toEqual(['config sql', 'engine sources']);
  });
});
