/**
 * A real browser for the UI tests (tik's board, shoal's console): Debian's Chromium driven by
 * playwright-core (no downloaded browser: .ci/run installs `chromium` and `fonts-liberation`).
 * Outside CI a missing Chromium skips the browser tests, loudly; in CI it is a failure.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = [process.env.SHOAL_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);

/** Where Chromium is, or undefined (and outside CI a loud skip message) when it is not installed. */
export function chromiumOrSkip(): { skip: boolean; executablePath?: string } {
  const found = CANDIDATES.find((p) => existsSync(p));
  if (found) return { skip: false, executablePath: found };
  const message = `no Chromium at ${CANDIDATES.join(', ')} (Debian: apt-get install chromium fonts-liberation; or set SHOAL_CHROMIUM)`;
  if (process.env.CI) throw new Error(message);
  process.stderr.write(`\n*** SKIPPING browser tests: ${message} ***\n\n`);
  return { skip: true };
}

/** Launches headless Chromium: no sandbox (tests may run as root), no GPU, no network but loopback use. */
export function launchBrowser(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-extensions', '--no-first-run', '--mute-audio'],
  });
}
