import { Command, Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { CliContext } from '../../../src/tik/cli/context.js';
import { memoryIo } from '../../../src/tik/cli/io.js';
import { buildTikProgram } from '../../../src/tik/cli/program.js';
import { renderRootHelp, rootHelpRequest } from '../../../src/tik/cli/root-help.js';
import { TIK_VERBS } from '../../../src/tik/cli/verbs.js';
import { tempDir, tik } from './harness.js';

/**
 * `tik --help` is printed from the verb table without commander (issue 18); it must stay the help
 * the commander program prints, byte for byte, whatever the terminal's width.
 */
async function commanderHelp(width: number | undefined): Promise<string> {
  const io = memoryIo({ cwd: '/' });
  const program = await buildTikProgram(new CliContext(io), TIK_VERBS);
  // commander's own default answers undefined when stdout is not a terminal, as `width` may
  program.configureOutput({ getOutHelpWidth: () => width as number });
  program.outputHelp();
  return io.stdout();
}

describe('the root help', () => {
  it.each([undefined, 20, 50, 80, 100, 132, 200, 400])('is what the commander program prints, at width %s', async (width) => {
    expect(renderRootHelp(width)).toBe(await commanderHelp(width));
  });

  it('lists each verb with the synopsis and summary its command has', async () => {
    const help = new Help();
    const ctx = new CliContext(memoryIo({ cwd: '/' }));
    for (const verb of TIK_VERBS) {
      const command = new Command(verb.name).description(verb.summary);
      (await verb.load())(command, ctx);
      expect(`${verb.name} ${verb.synopsis}`.trim(), `the synopsis of ${verb.name} in src/tik/cli/verbs.ts`).toBe(help.subcommandTerm(command));
    }
  });

  it('is what `tik --help`, `tik -h` and a bare `tik` print through the program', async () => {
    const dir = tempDir();
    for (const args of [['--help'], ['-h']]) {
      const r = await tik(dir, args);
      expect(r).toEqual({ code: 0, stdout: renderRootHelp(undefined), stderr: '' });
      expect(rootHelpRequest(args)).toBe('stdout');
    }
    const bare = await tik(dir, []);
    expect(bare).toEqual({ code: 2, stdout: '', stderr: renderRootHelp(undefined) });
    expect(rootHelpRequest([])).toBe('stderr');
  });

  it('is asked for only by --help, -h or nothing at all', () => {
    for (const args of [['--help', 'ls'], ['ls', '--help'], ['--root', 'x', '--help'], ['help'], ['--version'], ['-V'], ['-h', '-h']]) {
      expect(rootHelpRequest(args), args.join(' ')).toBeUndefined();
    }
  });
});
