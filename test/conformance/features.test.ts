import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFeature } from '../../src/tik/testing/feature-file.js';
import { readRegister, runExample } from '../../src/tik/testing/gherkin-runner.js';
import { parseStep } from '../../src/tik/testing/gherkin-steps.js';

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

// The runner must be able to fail: the same vocabulary over scenarios whose expectations are wrong.
describe('the Gherkin step runner', () => {
  const feature = (body: string) => parseFeature(`Feature: runner check\n\n  Scenario: s\n${body}`, 'runner-check.feature')[0]!;

  it('fails an Example whose expectation is false, naming the step', () => {
    const outcome = runExample(
      feature(`    Given a ticket following the "support-request" process
    When "seb" asserts category = :technical
    Then the stage :triaged is reached
    And the stage :received is reached`),
      env,
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.steps).toHaveLength(3);
    expect(outcome.steps[2]!.message).toMatch(/expected :triaged to be reached; reached #\{:received\}/);
  });

  it('fails current-stage and explain checks that do not hold', () => {
    const current = runExample(
      feature(`    Given a ticket following the "support-request" process
    Then the current stages are :received, :triaged`),
      env,
    );
    expect(current.passed).toBe(false);
    const missing = runExample(
      feature(`    Given a ticket following the "support-request" process
    When "seb" asserts category = :technical
    Then explain for :triaged lists category as missing`),
      env,
    );
    expect(missing.passed).toBe(false);
    const role = runExample(
      feature(`    Given a ticket following the "support-request" process
    When "rando" asserts category = :technical
    Then explain for :triaged says only "billing" may provide category`),
      env,
    );
    expect(role.passed).toBe(false);
  });

  it('refuses a step outside the closed vocabulary, and a step before the ticket exists', () => {
    expect(() => parseStep({ text: 'the moon is full', type: 'Context', line: 3 }, 'x.feature')).toThrow(
      expect.objectContaining({ code: 'feature/unknown-step' }),
    );
    expect(() => runExample(feature('    When "seb" asserts category = :technical'), env)).toThrow(
      expect.objectContaining({ code: 'feature/no-ticket' }),
    );
    expect(() => runExample(feature('    Given a ticket following the "no-such" process'), env)).toThrow(
      expect.objectContaining({ code: 'feature/unknown-process' }),
    );
  });

  it('reads every vocabulary form', () => {
    const kinds = [
      'a ticket following the "p" process',
      '"a" asserts x.y = "v"',
      '"a" retracts x',
      '"a" disputes x because "r"',
      '"a" attaches "repro/x"',
      '3 hours pass',
      'the stage :s is reached',
      'the stage :s is not reached',
      'the current stages are :a, :b',
      'explain for :s lists x.y as missing',
      'explain for :s says only "r" may provide x',
    ].map((text) => parseStep({ text, type: '', line: 1 }).kind);
    expect(kinds).toEqual([
      'ticket', 'assert', 'retract', 'dispute', 'attach', 'hours-pass',
      'stage-reached', 'stage-reached', 'current-stages', 'explain-missing', 'explain-only-role',
    ]);
  });
});
