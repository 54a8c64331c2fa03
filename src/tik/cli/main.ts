#!/usr/bin/env node
/**
 * The `tik` command: runs the commander program against the real process and exits with its code
 * (0 success, 1 failure, 2 usage error). See docs/tik.md.
 */
import { nodeIo } from './io.js';
import { runTik } from './run.js';

process.exitCode = await runTik(process.argv.slice(2), nodeIo());
