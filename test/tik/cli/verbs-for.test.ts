import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { CliContext } from '../../../src/tik/cli/context.js';
import { memoryIo } from '../../../src/tik/cli/io.js';
import { buildTikProgram } from '../../../src/tik/cli/program.js';
import { verbsFor } from '../../../src/tik/cli/verbs-for.js';
import { TIK_VERBS, type TikVerb } from '../../../src/tik/cli/verbs.js';

const names = (verbs: readonly TikVerb[]): string[] => verbs.map((v) => v.name);
const ALL = names(TIK_VERBS);

/** What commander makes of a command line with these verbs: its output and how it ended (actions not run). */
async function parse(argv: readonly string[], verbs: readonly TikVerb[]): Promise<{ out: string; err: string; ended: string }> {
  const io = memoryIo({ cwd: '/nonexistent' });
  const program = await buildTikProgram(new CliContext(io), verbs);
  // Stop at the action: this compares parsing, not what the verbs do.
  program.hook('preAction', () => {
    throw new Error('action');
  });
  let ended = 'parsed';
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    ended = e instanceof CommanderError ? `${e.code} ${e.exitCode}` : (e as Error).message;
  }
  return { out: io.stdout(), err: io.stderr(), ended };
}

describe('the verbs a command line loads', () => {
  it('is the verb it runs when the first word after the global options names one', () => {
    expect(names(verbsFor(['status', 'abc']))).toEqual(['status']);
    expect(names(verbsFor(['ls', '--help']))).toEqual(['ls']);
    expect(names(verbsFor(['--root', 'status', 'ls']))).toEqual(['ls']);
    expect(names(verbsFor(['--root=/x', '--actor', '-odd', '--remote', 'http://r', 'store', 'migrate']))).toEqual(['store']);
  });

  it('is every verb when the command line names none for certain', () => {
    for (const argv of [[], ['--help'], ['help', 'status'], ['stauts'], ['--bogus', 'ls'], ['--root'], ['-V', 'ls'], ['--', 'ls']]) {
      expect(names(verbsFor(argv)), argv.join(' ')).toEqual(ALL);
    }
  });

  it('parses every command line as the program with all verbs does', async () => {
    const lines = [
      ['ls'],
      ['--root', '/x', 'status', 'abc'],
      ['status'],
      ['status', 'abc', 'extra'],
      ['status', '--bogus', 'abc'],
      ['status', '--help'],
      ['--root', '/x', 'ls', '--json', '--help'],
      ['--root=/x', 'ls', '--whre', 'a'],
      ['actor'],
      ['actor', 'bogus'],
      ['store', 'migrate', '--help'],
      ['store', 'migrate'],
      ['sync', 'http://x', '--timeout'],
      ['stauts', 'abc'],
      ['help', 'diff'],
      ['--actor', 'seb', '--bogus'],
      ['--version'],
    ];
    for (const argv of lines) {
      expect(await parse(argv, verbsFor(argv)), argv.join(' ')).toEqual(await parse(argv, TIK_VERBS));
    }
  });
});
