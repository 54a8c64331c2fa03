#!/usr/bin/env node
/**
 * The `tik` command: runs the commander program against the real process and exits with its code
 * (0 success, 1 failure, 2 usage error). See docs/tik.md.
 *
 * Start-up is kept small (issue 18): the root help is printed from the verb table without loading
 * commander, and any other command line imports the program and only the verb it runs.
 */
import { EXIT } from './root-command.js';
import { renderRootHelp, rootHelpRequest } from './root-help.js';

const argv = process.argv.slice(2);
const help = rootHelpRequest(argv);
if (help !== undefined) {
  const stream = process[help];
  // commander wraps help to the terminal's width, and to 80 columns when not writing to one
  stream.write(renderRootHelp(stream.isTTY ? stream.columns : undefined));
  process.exitCode = help === 'stdout' ? EXIT.ok : EXIT.usage;
} else {
  const [{ nodeIo }, { runTik }] = await Promise.all([import('./io.js'), import('./run.js')]);
  process.exitCode = await runTik(argv, nodeIo());
}
