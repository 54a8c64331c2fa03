/**
 * `effects.edn` (a store file, tik-model.md §1.9): which webhooks fire when a ticket reaches a
 * stage. The file holds one map with an `:effects` vector of rules:
 *
 *   {:effects [{:stage :resolved                 ; required: the stage keyword
 *               :url "https://hooks.example/t"   ; required: http(s) URL to POST to
 *               :type :webhook                   ; optional, the only type `tik serve` delivers
 *               :process :support-request        ; optional: only tickets pinned to this process
 *               :pipeline :billing}]}            ; optional lease group (default :default)
 *
 * Unknown keys are refused (a typo in `:url` must not silently disable a hook). Every error is a
 * `TikError('effects/invalid')` naming the file and the key path (`effects.edn :effects 2 :url`).
 */
import { EdnMap, Keyword, isMap, readEdn, type EdnValue } from '../edn/index.js';
import { prStr } from '../edn/index.js';
import { TikError } from '../errors.js';

/** One rule of `effects.edn`: POST to `url` when a ticket (of `process`) reaches `stage`. */
export interface EffectRule {
  /** The lease group this rule is delivered under (keyword text without the colon). */
  readonly pipeline: string;
  /** Stage keyword text with its colon, as the kernel keys stages (`':resolved'`). */
  readonly stage: string;
  /** Process name without the colon (`'support-request'`), or undefined for every process. */
  readonly process: string | undefined;
  readonly type: 'webhook';
  readonly url: string;
}

export interface EffectsConfig {
  /** Where the rules came from, for messages. */
  readonly source: string;
  readonly rules: readonly EffectRule[];
  /** The distinct pipeline names, sorted. */
  readonly pipelines: readonly string[];
}

/** Pipeline used by rules without `:pipeline`. */
export const DEFAULT_PIPELINE = 'default';

const RULE_KEYS = new Set([':stage', ':url', ':type', ':process', ':pipeline']);
/** Effect types upstream knows but `tik serve` does not deliver. */
const OTHER_TYPES = new Set(['email', 'command', 'ntfy', 'telegram']);
const EXAMPLE = '{:effects [{:stage :resolved :url "https://hooks.example/tik"}]}';

function invalid(source: string, keyPath: string, message: string, hint: string): TikError {
  return new TikError('effects/invalid', `${source}${keyPath ? ` ${keyPath}` : ''}: ${message}`, { where: `${source}${keyPath ? ` ${keyPath}` : ''}`, hint });
}

/** Parse `effects.edn` text. Throws `effects/invalid` (or `edn/malformed`) naming file and key path. */
export function parseEffectsConfig(text: string, source = 'effects.edn'): EffectsConfig {
  const top = readEdn(text, source);
  if (!isMap(top)) throw invalid(source, '', `must be one map with an :effects vector, got ${prStr(top)}`, `e.g. ${EXAMPLE}`);
  for (const [k] of top.entries()) {
    if (!(k instanceof Keyword) || k.text !== 'effects') throw invalid(source, prStr(k), 'unknown key (only :effects is read)', `e.g. ${EXAMPLE}`);
  }
  const list = top.get(Keyword.of('effects'));
  if (!Array.isArray(list)) throw invalid(source, ':effects', 'must be a vector of rule maps', `e.g. ${EXAMPLE}`);
  const rules = (list as readonly EdnValue[]).map((r, i) => parseRule(r, source, `:effects ${i}`));
  return Object.freeze({
    source,
    rules: Object.freeze(rules),
    pipelines: Object.freeze([...new Set(rules.map((r) => r.pipeline))].sort()),
  });
}

function parseRule(v: EdnValue, source: string, path: string): EffectRule {
  if (!(v instanceof EdnMap)) throw invalid(source, path, `a rule must be a map, got ${prStr(v)}`, 'e.g. {:stage :resolved :url "https://hooks.example/tik"}');
  for (const [k] of v.entries()) {
    const t = prStr(k);
    if (!RULE_KEYS.has(t)) throw invalid(source, `${path} ${t}`, 'unknown key in an effect rule', `a rule takes ${[...RULE_KEYS].join(' ')}`);
  }
  const get = (name: string): EdnValue | undefined => v.get(Keyword.of(name));
  const keyword = (name: string, required: boolean): string | undefined => {
    const x = get(name);
    if (x === undefined) {
      if (required) throw invalid(source, `${path} :${name}`, 'is required', `e.g. :${name} :resolved`);
      return undefined;
    }
    if (!(x instanceof Keyword)) throw invalid(source, `${path} :${name}`, `must be a keyword, got ${prStr(x)}`, `e.g. :${name} :${name === 'pipeline' ? 'billing' : 'resolved'}`);
    return x.text;
  };
  const stage = keyword('stage', true)!;
  const type = keyword('type', false) ?? 'webhook';
  if (type !== 'webhook') {
    throw invalid(
      source,
      `${path} :type`,
      OTHER_TYPES.has(type) ? `effect type :${type} is not delivered by tik serve` : `unknown effect type :${type}`,
      'tik serve delivers :webhook effects (an HTTP POST); use a webhook bridge for other channels',
    );
  }
  const url = get('url');
  if (url === undefined) throw invalid(source, `${path} :url`, 'is required', 'e.g. :url "https://hooks.example/tik"');
  if (typeof url !== 'string' || !isHttpUrl(url)) throw invalid(source, `${path} :url`, `must be an http(s) URL string, got ${prStr(url)}`, 'e.g. :url "https://hooks.example/tik"');
  const process = keyword('process', false);
  const pipeline = keyword('pipeline', false) ?? DEFAULT_PIPELINE;
  return Object.freeze({ pipeline, stage: `:${stage}`, process, type: 'webhook' as const, url });
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '';
  } catch {
    return false;
  }
}
