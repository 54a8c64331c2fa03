import type { Command } from 'commander';
import { runDemo } from '../../demo/run-demo.js';
import { formatTable } from './query.js';

/** `shoal demo [--dir DIR]`: the main job on embedded defaults, no servers needed. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('generate sample data (SQLite, CSV, a tik store), start an instance on embedded defaults, run a governed federated query')
    .option('--dir <dir>', 'where to write the sample data and config (default: a new temporary directory)')
    .action(async (opts: { dir?: string }) => {
      const result = await runDemo(opts.dir, (l) => process.stderr.write(`${l}\n`));
      for (const { step, columns, rows, route } of result.steps) {
        process.stdout.write(`\n== ${step.title}  [route: ${route}]\n${step.sql}\n\n${formatTable(columns, rows)}\n`);
      }
      process.stdout.write(
        `\nTry it yourself:\n  node dist/src/shoal/cli/main.js query --config ${result.dir}/shoal.yaml --role analyst --var provisa.user_region=us "SELECT * FROM sales.customers"\n` +
          `  node dist/src/shoal/cli/main.js serve --config ${result.dir}/shoal.yaml --port 8000\n`,
      );
    });
}
