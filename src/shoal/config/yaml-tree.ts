/**
 * Read YAML text into plain values while keeping, for every key path, the line and column where it
 * was written (the Document API with a LineCounter), so validation errors can point at the text.
 * String scalars are env-interpolated here, except at secret paths, which stay references.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { child, item, type ConfigIssue } from './config-issue.js';
import { interpolate, type Env } from './env-interpolation.js';

export interface Position {
  readonly line: number;
  readonly column: number;
}

export interface YamlTree {
  /** The document as plain JSON-like values (undefined when the text has fatal YAML errors). */
  readonly value: unknown;
  /** key path → position of the key (for map entries) or of the item (for sequence items). */
  readonly positions: ReadonlyMap<string, Position>;
  readonly issues: readonly ConfigIssue[];
}

export interface ReadYamlOptions {
  readonly env: Env;
  /** Paths whose `${env:…}` references must stay unresolved (secrets). */
  readonly isSecretPath: (path: string) => boolean;
}

export function readYamlTree(text: string, options: ReadYamlOptions): YamlTree {
  const lineCounter = new LineCounter();
  const { text: protectedText, restore } = protectReferences(text);
  const doc = parseDocument(protectedText, { lineCounter, uniqueKeys: true, prettyErrors: true });
  const issues: ConfigIssue[] = [];
  const positions = new Map<string, Position>();
  const at = (offset: number | undefined): Position => {
    const p = lineCounter.linePos(offset ?? 0);
    return { line: p.line, column: p.col };
  };
  for (const e of doc.errors) {
    const line = e.linePos?.[0];
    issues.push({
      code: 'CONFIG_YAML',
      path: '',
      message: `YAML syntax error: ${firstLine(e.message)}`,
      ...(line ? { line: line.line, column: line.col } : {}),
      hint: 'fix the YAML syntax (indentation, quoting, duplicate keys) at that line',
    });
  }
  if (doc.errors.length > 0) return { value: undefined, positions, issues };

  const walk = (node: unknown, path: string, depth: number): unknown => {
    if (depth > 64) {
      issues.push({ code: 'CONFIG_YAML', path, message: 'document nests too deeply (aliases?)' });
      return null;
    }
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return walk(node.resolve(doc as Document), path, depth + 1);
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      const set = (key: string, value: unknown) =>
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      // merge keys (`<<: *base`, as PyYAML reads upstream configs) first, so explicit keys override them
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        if (!(isScalar(keyNode) && keyNode.value === '<<' && keyNode.type === 'PLAIN')) continue;
        const target = isAlias(pair.value) ? pair.value.resolve(doc as Document) : pair.value;
        const sources = isSeq(target) ? target.items : [pair.value];
        for (const src of sources) {
          const merged = walk(src, path, depth + 1);
          if (merged === null || typeof merged !== 'object' || Array.isArray(merged)) {
            issues.push({ code: 'CONFIG_YAML', path: child(path, '<<'), message: 'a merge key (<<) needs a mapping or a list of mappings', ...at(keyNode.range?.[0]) });
            continue;
          }
          for (const [k, v] of Object.entries(merged)) set(k, v);
        }
      }
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        if (isScalar(keyNode) && keyNode.value === '<<' && keyNode.type === 'PLAIN') continue;
        const key = restore(isScalar(keyNode) ? String(keyNode.value) : String(keyNode ?? ''));
        const p = child(path, key);
        positions.set(p, at(keyNode?.range?.[0]));
        set(key, walk(pair.value, p, depth + 1));
      }
      return out;
    }
    if (isSeq(node)) {
      return node.items.map((it, i) => {
        const p = item(path, i);
        positions.set(p, at((it as Node | null)?.range?.[0] ?? node.range?.[0]));
        return walk(it, p, depth + 1);
      });
    }
    if (isScalar(node)) {
      const v = typeof node.value === 'string' ? restore(node.value) : node.value;
      if (typeof v !== 'string' || options.isSecretPath(path)) return v;
      const r = interpolate(v, options.env);
      if (r.ok) return r.value;
      const pos = positions.get(path) ?? at(node.range?.[0]);
      issues.push({
        code: r.problem === 'missing' ? 'CONFIG_ENV_MISSING' : 'CONFIG_ENV_MALFORMED',
        path,
        message: r.detail,
        line: pos.line,
        column: pos.column,
        hint:
          r.problem === 'missing'
            ? `set ${r.variable} in the environment, or give a default: \${env:${r.variable}:-value}`
            : 'write ${env:VAR} or ${env:VAR:-default} (VAR: letters, digits, underscore)',
      });
      // no value: validation then reports nothing more about this key, and checks the rest
      return undefined;
    }
    return null;
  };
  const value = walk(doc.contents, '', 0);
  return { value, positions, issues };
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/**
 * `${env:VAR}` is not valid inside a YAML flow collection (`{a: ${env:X}}`: the braces are flow
 * indicators), yet upstream configs write it there. Before parsing, each well-formed reference is
 * replaced by a placeholder of the same length made of plain-scalar-safe private-use characters (so
 * every line and column is unchanged); string scalars are restored after parsing.
 */
function protectReferences(text: string): { text: string; restore: (s: string) => string } {
  const originals: string[] = [];
  const replaced = text.replace(/\$\{env:[A-Za-z_][A-Za-z0-9_]*(?::-[^}\n]*)?\}/g, (m) => {
    const token = `${OPEN}${originals.length}`;
    originals.push(m);
    return token + PAD.repeat(m.length - token.length);
  });
  if (originals.length === 0) return { text, restore: (s) => s };
  const restore = (s: string) => s.replace(TOKEN, (_, i: string) => originals[Number(i)] ?? '');
  return { text: replaced, restore };
}

const OPEN = '\uE000';
const PAD = '\uE001';
const TOKEN = /\uE000(\d+)\uE001*/g;
