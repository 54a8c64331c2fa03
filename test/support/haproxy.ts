/**
 * Whether the fleet tests can run: HAProxy is an installed binary (.ci/run installs Debian's
 * package). Outside CI a missing HAProxy skips them, loudly; in CI it is a failure, never a skip.
 */
import { haproxyBinary } from '../../src/core/fleet/fleet.js';

export function haproxyOrSkip(): { skip: boolean; bin?: string } {
  try {
    return { skip: false, bin: haproxyBinary() };
  } catch (e) {
    if (process.env.CI) throw e;
    process.stderr.write(`\n*** SKIPPING fleet tests: ${(e as Error).message} ***\n\n`);
    return { skip: true };
  }
}
