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
      const t = result.token;
      process.stdout.write(
        `\nTry it yourself:\n  node dist/src/shoal/cli/main.js query --config ${result.dir}/shoal.yaml --role analyst --var provisa.user_region=us "SELECT * FROM sales.customers"\n` +
          '  (the local CLI is the operator: it may act as any role and set any session variable)\n\n' +
          `  node dist/src/shoal/cli/main.js serve --config ${result.dir}/shoal.yaml --port 8000\n` +
          `  curl -s localhost:8000/data/sql -H 'authorization: Bearer ${t.secret}' -H 'content-type: application/json' \\\n` +
          `       -d '{"sql": "SELECT name, email, region FROM sales.customers"}'\n` +
          `  (an access token for role ${t.role} with provisa.user_region=eu, expiring ${t.expiresAt}: the server takes the role\n` +
          '   and the region from the token, never from the request; shoal token create|list|revoke manages tokens)\n' +
          '  or open http://localhost:8000/ (the console) and sign in with that token\n',
      );
    });
}
