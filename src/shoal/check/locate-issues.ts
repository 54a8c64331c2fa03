/** Give issues found after loading (binding checks) the YAML line of their key path, as the loader's own issues have. */
import { readFileSync } from 'node:fs';
import type { ConfigIssue } from '../config/config-issue.js';
import { readYamlTree, type Position } from '../config/yaml-tree.js';

export function locateIssues(path: string, issues: readonly ConfigIssue[]): ConfigIssue[] {
  let positions: ReadonlyMap<string, Position>;
  try {
    positions = readYamlTree(readFileSync(path, 'utf8'), { env: {}, isSecretPath: () => true }).positions;
  } catch {
    return [...issues];
  }
  return issues.map((issue) => {
    if (issue.line !== undefined) return issue;
    let p = issue.path;
    while (p !== '') {
      const pos = positions.get(p);
      if (pos) return { ...issue, line: pos.line, column: pos.column };
      const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
      p = cut <= 0 ? '' : p.slice(0, cut);
    }
    return issue;
  });
}
