import { describe, expect, it } from 'vitest';
import { processSvg, type SvgStage } from '../../../src/tik/app/process-svg.js';

// The process picture (issue 19): a box per stage, an arrow per `:after`, a deterministic
// layered layout, current stages filled, every name escaped.

const SUPPORT: SvgStage[] = [
  { key: ':received', afterKeys: [] },
  { key: ':triaged', afterKeys: [':received'] },
  { key: ':escalated', afterKeys: [':received'] },
  { key: ':reproducible', afterKeys: [':triaged'] },
  { key: ':resolved', afterKeys: [':triaged'] },
  { key: ':closed', afterKeys: [':resolved'] },
];

/** Each stage's box origin, read back from the picture. */
const boxes = (svg: string): Record<string, [number, number]> =>
  Object.fromEntries([...svg.matchAll(/data-stage="([^"]+)"><title>[^<]*<\/title><rect x="(\d+)" y="(\d+)"/g)].map((m) => [m[1]!, [Number(m[2]), Number(m[3])]]));

describe('processSvg', () => {
  it('puts a stage one column right of the longest :after chain before it, rows in definition order', () => {
    const svg = processSvg(SUPPORT, new Set([':triaged']), new Set([':received', ':triaged']), ':support-request v1');
    const at = boxes(svg);
    expect(at).toEqual({
      ':received': [10, 10],
      ':triaged': [210, 10],
      ':escalated': [210, 62],
      ':reproducible': [410, 10],
      ':resolved': [410, 62],
      ':closed': [610, 10],
    });
    expect(svg.match(/class="edge"/g)).toHaveLength(5);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" class="process" width="770" height="108"/);
  });

  it('fills the current stages and outlines the reached ones', () => {
    const svg = processSvg(SUPPORT, new Set([':triaged']), new Set([':received', ':triaged']), 'p');
    expect([...svg.matchAll(/<g class="([^"]+)" data-stage="([^"]+)"/g)].map((m) => [m[2], m[1]])).toEqual([
      [':received', 'stage reached'],
      [':triaged', 'stage current'],
      [':escalated', 'stage'],
      [':reproducible', 'stage'],
      [':resolved', 'stage'],
      [':closed', 'stage'],
    ]);
  });

  it('is the same text for the same input (deterministic)', () => {
    const a = processSvg(SUPPORT, new Set([':received']), new Set([':received']), 'p');
    const b = processSvg([...SUPPORT], new Set([':received']), new Set([':received']), 'p');
    expect(a).toBe(b);
  });

  it('escapes every name and carries no script or style', () => {
    const svg = processSvg([{ key: '<script>alert(1)</script>', afterKeys: [] }, { key: '" onload="x', afterKeys: ['<script>alert(1)</script>'] }], new Set(), new Set(), '</title><script>x</script>');
    expect(svg).not.toMatch(/<script|<style|onload="/);
    expect(svg).toContain('&#60;script&#62;');
    expect(svg).toContain('data-stage="&#34; onload=&#34;x"');
  });

  it('cuts an :after cycle instead of following it, and ignores an :after naming no stage', () => {
    const svg = processSvg([{ key: ':a', afterKeys: [':b'] }, { key: ':b', afterKeys: [':a', ':nowhere'] }], new Set(), new Set(), 'p');
    expect(Object.keys(boxes(svg)).sort()).toEqual([':a', ':b']);
    expect(svg.match(/class="edge"/g)).toHaveLength(2);
  });
});
