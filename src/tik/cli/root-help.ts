import { GLOBAL_OPTIONS, HELP_FOOTER, TIK_DESCRIPTION } from './root-command.js';
import { TIK_VERBS } from './verbs.js';

/**
 * `tik --help` without commander (issue 18): the root help is rendered from the verb table with
 * commander's own layout (Help.formatHelp, formatItem and boxWrap of commander 14), so printing
 * it loads neither the parser nor a verb. test/tik/cli/root-help.test.ts keeps it byte-equal to
 * what the commander program prints, at several terminal widths.
 */

/** commander does not wrap text into a column narrower than this. */
const MIN_WIDTH_TO_WRAP = 40;
/** commander's help width when the output is not a terminal. */
const DEFAULT_WIDTH = 80;

/**
 * Whether the command line asks for the root help and nothing else: `tik --help` and `tik -h`
 * print it to stdout and succeed; a bare `tik` prints it to stderr as a usage error. Any other
 * command line goes to the commander program.
 */
export function rootHelpRequest(argv: readonly string[]): 'stdout' | 'stderr' | undefined {
  if (argv.length === 0) return 'stderr';
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) return 'stdout';
  return undefined;
}

/** The root help as commander prints it; `columns` is the terminal's width, undefined when not a terminal. */
export function renderRootHelp(columns: number | undefined): string {
  const width = columns ?? DEFAULT_WIDTH;
  const options: ReadonlyArray<readonly [string, string]> = [
    ['-V, --version', 'output the version number'],
    ...GLOBAL_OPTIONS.map((o) => [o.flags, o.description] as const),
    ['-h, --help', 'display help for command'],
  ];
  const commands: ReadonlyArray<readonly [string, string]> = [
    ...TIK_VERBS.map((v) => [v.synopsis === '' ? v.name : `${v.name} ${v.synopsis}`, v.summary] as const),
    ['help [command]', 'display help for command'],
  ];
  const termWidth = Math.max(...[...options, ...commands].map(([term]) => term.length));
  const item = ([term, description]: readonly [string, string]): string => formatItem(term, termWidth, description, width);
  const help = ['Usage: tik [options] [command]', '', boxWrap(TIK_DESCRIPTION, width), '', 'Options:', ...options.map(item), '', 'Commands:', ...commands.map(item), ''];
  return `${help.join('\n')}${HELP_FOOTER}\n`;
}

/** A term padded to the column, then its description wrapped into the rest of the width. */
function formatItem(term: string, termWidth: number, description: string, width: number): string {
  const indent = 2;
  const spacer = 2;
  const remaining = width - termWidth - spacer - indent;
  const preformatted = /\n[^\S\r\n]/.test(description);
  const text = remaining < MIN_WIDTH_TO_WRAP || preformatted ? description : boxWrap(description, remaining).replace(/\n/g, `\n${' '.repeat(termWidth + spacer)}`);
  return `${' '.repeat(indent)}${term.padEnd(termWidth)}${' '.repeat(spacer)}${text.replace(/\n/g, `\n${' '.repeat(indent)}`)}`;
}

/** Wrap at whitespace to `width` columns, keeping existing line breaks. */
function boxWrap(text: string, width: number): string {
  if (width < MIN_WIDTH_TO_WRAP) return text;
  const wrapped: string[] = [];
  for (const line of text.split(/\r\n|\n/)) {
    const chunks = line.match(/\s*\S+/g);
    if (chunks === null) {
      wrapped.push('');
      continue;
    }
    let current = chunks[0]!;
    for (const chunk of chunks.slice(1)) {
      if (current.length + chunk.length <= width) current += chunk;
      else {
        wrapped.push(current);
        current = chunk.trimStart();
      }
    }
    wrapped.push(current);
  }
  return wrapped.join('\n');
}
