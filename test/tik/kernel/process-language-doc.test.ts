// docs/tik-process-language.md must keep up with the kernel: every guard operator the kernel
// evaluates, every lint code it emits and every :lint rule it honours is read from the kernel
// itself (its exports and lint.ts's source), so a new one fails here until it is documented.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VOCAB_2 } from '../../../src/tik/kernel/guard.js';
import { LINT_RULES, PROCESS_KEYS, ROLE_KEYS, STAGE_KEYS } from '../../../src/tik/kernel/index.js';

const doc = readFileSync(resolve(process.cwd(), 'docs/tik-process-language.md'), 'utf8');
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('docs/tik-process-language.md', () => {
  it('has a row in the operator table for every guard operator the kernel accepts', () => {
    expect(VOCAB_2.length).toBeGreaterThanOrEqual(12);
    const missing = VOCAB_2.filter((op) => !new RegExp(`^\\| \`\\[${escape(op)}[ \\]]`, 'm').test(doc));
    expect(missing).toEqual([]);
  });

  it('documents every lint code lint.ts emits', () => {
    const source = readFileSync(resolve(process.cwd(), 'src/tik/kernel/lint.ts'), 'utf8');
    const codes = [...new Set([...source.matchAll(/'(lint\/[a-z=-]+)'/g)].map((m) => m[1] as string))];
    expect(codes.length).toBeGreaterThanOrEqual(17);
    expect(codes.filter((c) => !doc.includes(`| \`${c}\` |`))).toEqual([]);
  });

  it('has a row for every key lint knows in the definition map and in a stage map, and names the role keys', () => {
    expect([...PROCESS_KEYS, ...STAGE_KEYS].filter((k) => !doc.includes(`| \`${k}\` |`))).toEqual([]);
    expect(ROLE_KEYS.filter((k) => !doc.includes(`{${k} [`))).toEqual([]);
  });

  it('names every rule {:lint {rule :off}} can turn off', () => {
    expect(LINT_RULES.filter((r) => !doc.includes(`\`${r}\``))).toEqual([]);
  });

  it('stands alone: no pointer into the design notes', () => {
    expect(doc).not.toMatch(/\.\.\/shared|tik-model/);
  });
});
