/**
 * Vitest global setup for the integration project: start PostgreSQL, Redis and MariaDB once for
 * the run (or take PG_URL / REDIS_URL / MYSQL_URL), hand their URLs to the test files through
 * `provide`, and stop them at the end. With CI=true a missing service fails the run.
 */
import type { TestProject } from 'vitest/node';
import { DEBIAN_PACKAGE, envVarFor, isMissing, startMariadb, startPostgres, startRedis, type Missing, type Running, type ServiceName } from './services.js';

import type { ServiceInfo } from './provided.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const results = await Promise.all([startPostgres(), startRedis(), startMariadb()]);
  const running = results.filter((r): r is Running => !isMissing(r));
  const missing = results.filter((r): r is Missing => isMissing(r));
  const teardown = async (): Promise<void> => {
    await Promise.all(running.map((r) => r.stop()));
  };
  if (missing.length > 0) {
    const lines = missing.map((m) => `  - ${m.name}: ${m.missing}; install the Debian package \`${DEBIAN_PACKAGE[m.name]}\` or set ${envVarFor(m.name)}`);
    const banner = `\n${'!'.repeat(78)}\nINTEGRATION SERVICES MISSING — the suites that need them will be SKIPPED:\n${lines.join('\n')}\n${'!'.repeat(78)}\n`;
    if (process.env.CI === 'true') {
      await teardown();
      throw new Error(`CI=true and required services are missing:\n${lines.join('\n')}`);
    }
    process.stderr.write(banner);
  }
  const services = {} as Record<ServiceName, ServiceInfo>;
  for (const r of results) services[r.name] = isMissing(r) ? { missing: r.missing } : { url: r.url };
  project.provide('services', services);
  return teardown;
}
