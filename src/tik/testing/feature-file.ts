import { AstBuilder, compile, GherkinClassicTokenMatcher, Parser } from '@cucumber/gherkin';
import { IdGenerator } from '@cucumber/messages';
import { TikError } from '../errors.js';

/** One step of an Example, after the Background has been prepended by the Gherkin compiler. */
export interface FeatureStep {
  /** The step text without its keyword, e.g. `"seb" asserts category = :technical`. */
  readonly text: string;
  /** The Gherkin step type (`Context`, `Action`, `Outcome`), or `''` when unknown. */
  readonly type: string;
  /** The 1-based line of the step in the feature file. */
  readonly line: number;
}

/** One Example (a Gherkin pickle): what a test runs. */
export interface FeatureExample {
  readonly uri: string;
  readonly feature: string;
  readonly rule: string | undefined;
  readonly name: string;
  readonly line: number;
  readonly steps: readonly FeatureStep[];
}

/**
 * Parse a `.feature` file with the official Gherkin parser and compile it into Examples, each
 * with its Background steps first (the Gherkin "pickle"). Nothing is transcribed by hand.
 */
export function parseFeature(source: string, uri: string): FeatureExample[] {
  const newId = IdGenerator.incrementing();
  const parser = new Parser(new AstBuilder(newId), new GherkinClassicTokenMatcher());
  let document;
  try {
    document = parser.parse(source);
  } catch (e) {
    throw new TikError('feature/malformed', `${uri}: ${e instanceof Error ? e.message : String(e)}`, {
      where: uri,
      hint: 'fix the Gherkin syntax of the feature file',
    });
  }
  const feature = document.feature;
  if (!feature) return [];

  // Map each AST node id to its line and each scenario to the rule that holds it.
  const lineOf = new Map<string, number>();
  const ruleOf = new Map<string, string>();
  const visitScenario = (scenario: { id: string; location: { line: number }; steps: readonly { id: string; location: { line: number } }[] }, rule?: string) => {
    lineOf.set(scenario.id, scenario.location.line);
    if (rule !== undefined) ruleOf.set(scenario.id, rule);
    for (const step of scenario.steps) lineOf.set(step.id, step.location.line);
  };
  for (const child of feature.children) {
    if (child.background) for (const step of child.background.steps) lineOf.set(step.id, step.location.line);
    if (child.scenario) visitScenario(child.scenario);
    if (child.rule) {
      for (const rc of child.rule.children) {
        if (rc.background) for (const step of rc.background.steps) lineOf.set(step.id, step.location.line);
        if (rc.scenario) visitScenario(rc.scenario, child.rule.name);
      }
    }
  }

  return compile(document, uri, newId).map((pickle) => {
    const scenarioId = pickle.astNodeIds[0] ?? '';
    return Object.freeze({
      uri,
      feature: feature.name,
      rule: ruleOf.get(scenarioId),
      name: pickle.name,
      line: lineOf.get(scenarioId) ?? 0,
      steps: Object.freeze(
        pickle.steps.map((s) => {
          const astId = s.astNodeIds[0] ?? '';
          return Object.freeze({ text: s.text, type: s.type ?? '', line: lineOf.get(astId) ?? 0 });
        }),
      ),
    });
  });
}
