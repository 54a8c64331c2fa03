import { GLOBAL_OPTIONS } from './root-command.js';
import { TIK_VERBS, type TikVerb } from './verbs.js';

/** The global options, each of which takes the next word as its value. */
const TAKES_VALUE = new Set(GLOBAL_OPTIONS.map((o) => o.flags.split(' ')[0]!));

/**
 * The verbs the commander program needs for this command line. When the first word after the
 * global options names a verb, only that verb (the run imports one command module, not all of
 * them); otherwise every verb, so that the root help, `tik help …`, an unknown verb's suggestion
 * and an unknown global option read exactly as they do with the full program.
 */
export function verbsFor(argv: readonly string[]): readonly TikVerb[] {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (TAKES_VALUE.has(word)) {
      i++; // its value, whatever it looks like (commander takes it the same way)
      continue;
    }
    if (word.startsWith('--') && word.includes('=') && TAKES_VALUE.has(word.slice(0, word.indexOf('=')))) continue;
    if (word.startsWith('-')) return TIK_VERBS;
    const verb = TIK_VERBS.find((v) => v.name === word);
    return verb ? [verb] : TIK_VERBS;
  }
  return TIK_VERBS;
}
