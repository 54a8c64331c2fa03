import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { emit, readEdn } from '../edn/index.js';
import { isMap, type Keyword } from '../edn/value.js';
import { TikError } from '../errors.js';
import { parseProcess, resolveRoles, type ProcessDef, type Roles } from '../kernel/index.js';
import { explainBlock, reasonsOf, type ReasonView } from './explain-view.js';
import type { FeatureExample, FeatureStep } from './feature-file.js';
import { parseStep, type GherkinStep } from './gherkin-steps.js';
import { SimTicket } from './sim-ticket.js';

/** Where the runner finds `processes/<p>.edn` and the roles register the features use. */
export interface GherkinEnvironment {
  readonly processesDir: string;
  /** The parsed `roles.edn` register (§4.3); merged over each definition's own roles. */
  readonly register: unknown;
}

export interface StepOutcome {
  readonly step: FeatureStep;
  readonly ok: boolean;
  readonly message?: string;
}

export interface ExampleOutcome {
  readonly example: FeatureExample;
  readonly passed: boolean;
  readonly steps: readonly StepOutcome[];
}

const HOUR_MS = 3_600_000;
/** The hash the features attach with (§11.2). */
export const FEATURE_ARTIFACT_HASH = 'sha256-feature';
/** The actor that creates the feature ticket (§11.2). */
export const FEATURE_CREATOR = 'gherkin';

/** Read a roles register file (`roles.edn`). */
export function readRegister(path: string): unknown {
  return readEdn(readFileSync(path, 'utf8'), path);
}

function loadProcess(env: GherkinEnvironment, name: string): ProcessDef {
  const file = join(env.processesDir, `${name}.edn`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new TikError('feature/unknown-process', `no process definition "${name}" at ${file}`, {
      where: file,
      hint: 'the feature names a process that must exist in the processes directory',
    });
  }
  return parseProcess(readEdn(text, file), file);
}

const pathText = (path: readonly Keyword[]): string => emit([...path]);

/**
 * Run one Example: parse every step against the closed vocabulary, then execute them in order
 * over an in-memory ticket. Stops at the first failing step (later steps are reported as not run).
 */
export function runExample(example: FeatureExample, env: GherkinEnvironment): ExampleOutcome {
  const parsed: GherkinStep[] = example.steps.map((s) => parseStep(s, example.uri));
  const outcomes: StepOutcome[] = [];
  let ticket: SimTicket | undefined;

  const need = (step: FeatureStep): SimTicket => {
    if (!ticket) {
      throw new TikError('feature/no-ticket', `${example.uri}:${step.line}: "${step.text}" comes before any ticket exists`, {
        where: `${example.uri}:${step.line}`,
        hint: 'start the scenario with: Given a ticket following the "<process>" process',
      });
    }
    return ticket;
  };

  for (let i = 0; i < parsed.length; i++) {
    const step = example.steps[i]!;
    const s = parsed[i]!;
    let failure: string | undefined;
    switch (s.kind) {
      case 'ticket': {
        const def = loadProcess(env, s.process);
        const roles: Roles = resolveRoles(def, isMap(env.register) ? env.register : undefined);
        ticket = new SimTicket(def, roles, { creator: FEATURE_CREATOR, title: example.name });
        break;
      }
      case 'assert':
        need(step).assert(s.actor, s.path, s.value);
        break;
      case 'retract':
        need(step).retract(s.actor, s.path);
        break;
      case 'dispute':
        need(step).dispute(s.actor, s.path, s.reason);
        break;
      case 'attach':
        need(step).attach(s.actor, s.artifactPath, FEATURE_ARTIFACT_HASH);
        break;
      case 'hours-pass':
        need(step).advance(s.hours * HOUR_MS);
        break;
      case 'stage-reached': {
        const reached = need(step).reached();
        if (reached.has(s.stage) !== s.expected) {
          failure = `expected ${s.stage} ${s.expected ? '' : 'not '}to be reached; reached ${setText(reached)}`;
        }
        break;
      }
      case 'current-stages': {
        const current = need(step).current();
        const expected = new Set(s.stages);
        if (current.size !== expected.size || [...expected].some((x) => !current.has(x))) {
          failure = `expected current stages ${setText(expected)}; got ${setText(current)}`;
        }
        break;
      }
      case 'explain-missing': {
        const reasons = reasonsFor(need(step), s.stage);
        const want = pathText(s.path);
        if (!reasons.some((r) => r.kind === 'fact/missing' && r.path === want)) {
          failure = `expected explain for ${s.stage} to list ${want} as missing; reasons: ${describeReasons(reasons)}`;
        }
        break;
      }
      case 'explain-only-role': {
        const reasons = reasonsFor(need(step), s.stage);
        const want = pathText(s.path);
        const role = `:${s.role}`;
        if (!reasons.some((r) => r.kind === 'role/unsatisfied' && r.path === want && r.role === role)) {
          failure = `expected explain for ${s.stage} to say only ${role} may provide ${want}; reasons: ${describeReasons(reasons)}`;
        }
        break;
      }
    }
    outcomes.push(failure === undefined ? { step, ok: true } : { step, ok: false, message: failure });
    if (failure !== undefined) break;
  }
  return { example, passed: outcomes.every((o) => o.ok) && outcomes.length === parsed.length, steps: outcomes };
}

function reasonsFor(ticket: SimTicket, stage: string): readonly ReasonView[] {
  const block = explainBlock(ticket.explain(), stage);
  return block ? reasonsOf(block) : [];
}

const setText = (s: ReadonlySet<string>): string => `#{${[...s].sort().join(' ')}}`;

const describeReasons = (reasons: readonly ReasonView[]): string =>
  reasons.length === 0 ? '(none: the stage is not on the frontier or has no failing guard)' : reasons.map((r) => r.text).join(', ');
