import { htmlText } from './board-html.js';

/** What the drawing reads of a definition: its stages in order and the stages each comes after. */
export interface SvgStage {
  readonly key: string;
  readonly afterKeys: readonly string[];
}

const BOX_W = 150;
const BOX_H = 36;
const GAP_X = 50;
const GAP_Y = 16;
const PAD = 10;

/**
 * The process as an SVG picture: a box per stage, an arrow from each stage named in `:after` to
 * the stage that follows it. Layout is deterministic: a stage's column is the length of the
 * longest `:after` chain leading to it, its row its order among the stages of that column in the
 * definition. Current stages are filled, reached ones outlined bold. Every name is escaped; the
 * picture carries no script, no style element and no external reference.
 */
export function processSvg(stages: readonly SvgStage[], current: ReadonlySet<string>, reached: ReadonlySet<string>, title: string): string {
  const byKey = new Map(stages.map((s) => [s.key, s] as const));
  const depth = new Map<string, number>();
  const depthOf = (key: string, seen: Set<string>): number => {
    const known = depth.get(key);
    if (known !== undefined) return known;
    // A cycle (a definition lint refuses) is cut rather than followed.
    if (seen.has(key)) return 0;
    seen.add(key);
    const s = byKey.get(key);
    const d = s === undefined ? 0 : Math.max(-1, ...s.afterKeys.filter((a) => byKey.has(a)).map((a) => depthOf(a, seen))) + 1;
    depth.set(key, d);
    return d;
  };
  const columns: string[][] = [];
  for (const s of stages) (columns[depthOf(s.key, new Set())] ??= []).push(s.key);
  const at = new Map<string, { x: number; y: number }>();
  columns.forEach((col, c) => col.forEach((key, r) => at.set(key, { x: PAD + c * (BOX_W + GAP_X), y: PAD + r * (BOX_H + GAP_Y) })));
  const width = PAD * 2 + Math.max(1, columns.length) * (BOX_W + GAP_X) - GAP_X;
  const height = PAD * 2 + Math.max(1, ...columns.map((c) => c.length)) * (BOX_H + GAP_Y) - GAP_Y;
  const edges: string[] = [];
  for (const s of stages) {
    const to = at.get(s.key)!;
    for (const a of s.afterKeys) {
      const from = at.get(a);
      if (from === undefined) continue;
      const x1 = from.x + BOX_W;
      const y1 = from.y + BOX_H / 2;
      const x2 = to.x - 2;
      const y2 = to.y + BOX_H / 2;
      const mid = (x1 + x2) / 2;
      edges.push(`<path class="edge" d="M${x1} ${y1} C${mid} ${y1} ${mid} ${y2} ${x2} ${y2}" fill="none" stroke="#888" stroke-width="1.5" marker-end="url(#arrow)"/>`);
    }
  }
  const boxes = stages.map((s) => {
    const p = at.get(s.key)!;
    const cls = current.has(s.key) ? 'stage current' : reached.has(s.key) ? 'stage reached' : 'stage';
    const fill = current.has(s.key) ? '#0e7490' : '#ffffff';
    const ink = current.has(s.key) ? '#ffffff' : '#1a1a1a';
    const stroke = current.has(s.key) || reached.has(s.key) ? '#0e7490' : '#999999';
    const label = s.key.length > 20 ? `${s.key.slice(0, 19)}…` : s.key;
    return (
      `<g class="${cls}" data-stage="${htmlText(s.key)}"><title>${htmlText(s.key)}</title>` +
      `<rect x="${p.x}" y="${p.y}" width="${BOX_W}" height="${BOX_H}" rx="8" fill="${fill}" stroke="${stroke}" stroke-width="${reached.has(s.key) ? 2.5 : 1}"/>` +
      `<text x="${p.x + BOX_W / 2}" y="${p.y + BOX_H / 2 + 5}" text-anchor="middle" font-family="sans-serif" font-size="13" fill="${ink}">${htmlText(label)}</text></g>`
    );
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="process" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${htmlText(title)}">` +
    `<title>${htmlText(title)}</title>` +
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0 L10 5 L0 10 z" fill="#888"/></marker></defs>' +
    edges.join('') +
    boxes.join('') +
    '</svg>\n'
  );
}
