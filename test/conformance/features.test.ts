import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFeature } from '../../src/tik/testing/feature-file.js';
import { readRegister, runExample } from '../../src/tik/testing/gherkin-runner.js';

// Upstream's Gherkin features, read in place and parsed with the official Gherkin parser; every
// Example runs as its own test through the closed step vocabulary (tik-model.md §11.2).
const root = resolve(process.cwd(), '../shared/tik-conformance');
const featuresDir = join(root, 'features');
const env = { processesDir: join(root, 'processes'), register: readRegister(join(root, 'roles.edn')) };
const files = readdirSync(featuresDir)
  .filter((f) => f.endsWith('.feature'))
  .sort();

describe('upstream Gherkin features', () => {
  it('finds all eight feature files and their twenty Examples', () => {
    expect(files).toHaveLength(8);
    const examples = files.flatMap((f) => parseFeature(readFileSync(join(featuresDir, f), 'utf8'), f));
    expect(examples).toHaveLength(20);
  });

  for (const file of files) {
    const examples = parseFeature(readFileSync(join(featuresDir, file), 'utf8'), file);
    describe(`${file}: ${examples[0]?.feature ?? ''}`, () => {
      for (const example of examples) {
        it(`${example.rule ? `${example.rule} › ` : ''}${example.name}`, () => {
          const outcome = runExample(example, env);
          const failed = outcome.steps.find((s) => !s.ok);
          expect(failed ? `line ${failed.step.line}: ${failed.step.text}: ${failed.message}` : 'passed').toBe('passed');
          expect(outcome.steps).toHaveLength(example.steps.length);
          expect(outcome.passed).toBe(true);
        });
      }
    });
  }
});
