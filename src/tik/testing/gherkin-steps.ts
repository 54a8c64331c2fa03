import { readEdn } from '../edn/index.js';
import { Keyword, type EdnValue } from '../edn/value.js';
import { TikError } from '../errors.js';
import type { FeatureExample, FeatureStep } from './feature-file.js';

/**
 * The closed step vocabulary of upstream's Gherkin features (tik-model.md §11.2). A step that is
 * not in the vocabulary is an error, never silently skipped.
 */
export type GherkinStep =
  | { readonly kind: 'ticket'; readonly process: string }
  | { readonly kind: 'assert'; readonly actor: string; readonly path: readonly Keyword[]; readonly value: EdnValue }
  | { readonly kind: 'retract'; readonly actor: string; readonly path: readonly Keyword[] }
  | { readonly kind: 'dispute'; readonly actor: string; readonly path: readonly Keyword[]; readonly reason: string }
  | { readonly kind: 'attach'; readonly actor: string; readonly artifactPath: string }
  | { readonly kind: 'hours-pass'; readonly hours: number }
  | { readonly kind: 'stage-reached'; readonly stage: string; readonly expected: boolean }
  | { readonly kind: 'current-stages'; readonly stages: readonly string[] }
  | { readonly kind: 'explain-missing'; readonly stage: string; readonly path: readonly Keyword[] }
  | { readonly kind: 'explain-only-role'; readonly stage: string; readonly role: string; readonly path: readonly Keyword[] };

const STAGE = String.raw`(:[A-Za-z][\w.*+!?<>=/-]*)`;
const DOTTED = String.raw`([A-Za-z][\w*+!?<>=-]*(?:\.[A-Za-z][\w*+!?<>=-]*)*)`;
const QUOTED = String.raw`"((?:[^"\\]|\\.)*)"`;

const dotted = (text: string): readonly Keyword[] => Object.freeze(text.split('.').map((s) => Keyword.of(s)));
const unquote = (text: string): string => text.replace(/\\(.)/g, '$1');

/** Each entry: a pattern over the whole step text and how to build the step from its groups. */
const VOCABULARY: readonly (readonly [RegExp, (m: RegExpExecArray, step: FeatureStep) => GherkinStep])[] = [
  [new RegExp(`^a ticket following the ${QUOTED} process$`), (m) => ({ kind: 'ticket', process: unquote(m[1]!) })],
  [
    new RegExp(`^${QUOTED} asserts ${DOTTED} = (.+)$`),
    (m, step) => ({ kind: 'assert', actor: unquote(m[1]!), path: dotted(m[2]!), value: readStepValue(m[3]!, step) }),
  ],
  [new RegExp(`^${QUOTED} retracts ${DOTTED}$`), (m) => ({ kind: 'retract', actor: unquote(m[1]!), path: dotted(m[2]!) })],
  [
    new RegExp(`^${QUOTED} disputes ${DOTTED} because ${QUOTED}$`),
    (m) => ({ kind: 'dispute', actor: unquote(m[1]!), path: dotted(m[2]!), reason: unquote(m[3]!) }),
  ],
  [new RegExp(`^${QUOTED} attaches ${QUOTED}$`), (m) => ({ kind: 'attach', actor: unquote(m[1]!), artifactPath: unquote(m[2]!) })],
  [/^(\d+) hours? pass(?:es)?$/, (m) => ({ kind: 'hours-pass', hours: Number(m[1]) })],
  [new RegExp(`^the stage ${STAGE} is (not )?reached$`), (m) => ({ kind: 'stage-reached', stage: m[1]!, expected: m[2] === undefined })],
  [
    new RegExp(`^the current stages are (${STAGE}(?:, ${STAGE})*)$`),
    (m) => ({ kind: 'current-stages', stages: Object.freeze(m[1]!.split(', ')) }),
  ],
  [
    new RegExp(`^explain for ${STAGE} lists ${DOTTED} as missing$`),
    (m) => ({ kind: 'explain-missing', stage: m[1]!, path: dotted(m[2]!) }),
  ],
  [
    new RegExp(`^explain for ${STAGE} says only ${QUOTED} may provide ${DOTTED}$`),
    (m) => ({ kind: 'explain-only-role', stage: m[1]!, role: unquote(m[2]!), path: dotted(m[3]!) }),
  ],
];

function readStepValue(text: string, step: FeatureStep): EdnValue {
  try {
    return readEdn(text, `step at line ${step.line}`);
  } catch (e) {
    throw new TikError('feature/bad-value', `step "${step.text}" (line ${step.line}): ${text} is not an EDN value`, {
      where: `line ${step.line}`,
      hint: 'write the value as EDN, e.g. :technical, true or "abc"',
      cause: e,
    });
  }
}

/** Match one step against the vocabulary. Throws `feature/unknown-step` for anything else. */
export function parseStep(step: FeatureStep, uri = 'feature'): GherkinStep {
  for (const [pattern, build] of VOCABULARY) {
    const m = pattern.exec(step.text);
    if (m) return Object.freeze(build(m, step));
  }
  throw new TikError('feature/unknown-step', `${uri}:${step.line}: no step in the vocabulary matches "${step.text}"`, {
    where: `${uri}:${step.line}`,
    hint: 'the step vocabulary is closed (tik-model.md §11.2); rephrase the step with a known form',
  });
}

/** Parse every step of an Example up front, so an unknown step fails before anything runs. */
export function parseExampleSteps(example: FeatureExample): GherkinStep[] {
  return example.steps.map((s) => parseStep(s, example.uri));
}
