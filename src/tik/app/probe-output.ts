import type { EdnMap, EdnValue, Keyword } from '../edn/value.js';
import { isCodedError } from '../../core/errors.js';
import { TikError } from '../errors.js';
import { keepsRawText, parseCliValue, parseKeyPath } from './kv-args.js';

/** One `key=value` a probe printed, typed as `tik set` types it. */
export interface ProbeFact {
  readonly key: string;
  readonly path: readonly Keyword[];
  readonly value: EdnValue;
}

/** A line a probe's output is read from: `key=value`, the key one token without spaces (upstream's `\s*([^=\s]+)=(.*)`). */
const LINE = /^\s*([^=\s]+)=(.*)$/;

/**
 * The facts in a probe's standard output. Every `key=value` line is one fact (value trimmed, then
 * read as `tik set` reads it: EDN if it parses, a bare word a keyword, else a string; paths the
 * definition declares `:string` keep the text); any other line is ignored, so a probe may print
 * notes. A key that is not a dotted key refuses the whole output (`probe/bad-output`): writing
 * some of a probe's facts and silently dropping one would misreport what it measured.
 */
export function probeFacts(stdout: string, definition: EdnMap | undefined): ProbeFact[] {
  const out: ProbeFact[] = [];
  const lines = stdout.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = LINE.exec(lines[i]!);
    if (!m) continue;
    const key = m[1]!;
    let path: readonly Keyword[];
    try {
      path = parseKeyPath(key, `probe output line ${i + 1}`);
    } catch (e) {
      if (!isCodedError(e)) throw e;
      throw new TikError('probe/bad-output', `the probe printed ${JSON.stringify(lines[i])} (line ${i + 1}), whose key is not a dotted key; nothing was recorded`, {
        where: `probe output line ${i + 1}`,
        hint: 'a probe prints key=value lines with keys such as gate or dependabot.status',
      });
    }
    out.push({ key, path, value: parseCliValue(m[2]!.trim(), { raw: keepsRawText(definition, path) }) });
  }
  return out;
}
