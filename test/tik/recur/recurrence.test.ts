import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRecurFlag, parseRecurrences } from '../../../src/tik/recur/recurrence.js';
import { readRecurrencesFile } from '../../../src/tik/recur/recurrences-file.js';
import { cleanup, tempDir } from '../cli/harness.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

describe('recurrences configuration', () => {
  it('reads recurrences.edn entries with a default actor and optional title', () => {
    const rs = parseRecurrences('[{:process :track :cadence :weekly :actor "tik-backend"} {:process "release" :cadence :quarterly :title "Q release"}]', 'recurrences.edn', 'dflt');
    expect(rs).toEqual([
      { process: 'track', cadence: 'weekly', actor: 'tik-backend' },
      { process: 'release', cadence: 'quarterly', actor: 'dflt', title: 'Q release' },
    ]);
  });

  it('refuses a malformed file naming the entry', () => {
    const bad: [string, RegExp][] = [
      ['{:process :track}', /must be a vector/],
      ['[:track]', /entry 0 is not a map/],
      ['[{:process :track}]', /entry 0 needs :process and :cadence/],
      ['[{:process :track :cadence :weekly} {:process :x :cadence :hourly}]', /unknown cadence/],
      ['[{:process "../etc" :cadence :daily}]', /not a process name/],
      ['[{:process :track :cadence :daily :actor 7}]', /:actor must be a non-empty string/],
    ];
    for (const [text, message] of bad) {
      expect(() => parseRecurrences(text, 'recurrences.edn', 'a'), text).toThrow(message);
    }
    expect(() => parseRecurrences('[{:process :track :cadence :hourly}]', 'r.edn', 'a')).toThrow(expect.objectContaining({ code: 'recur/bad-cadence' }));
  });

  it('reads --recur PROCESS=CADENCE flags, refusing others as usage errors', () => {
    expect(parseRecurFlag('track=weekly', 'tik-backend')).toEqual({ process: 'track', cadence: 'weekly', actor: 'tik-backend' });
    for (const bad of ['track', 'track=hourly', '=weekly']) {
      expect(() => parseRecurFlag(bad, 'a'), bad).toThrow(expect.objectContaining({ code: 'cli/usage' }));
    }
  });

  it('a missing default file is no recurrences; a missing named file is an error', async () => {
    const dir = tempDir('tik-recur-');
    dirs.push(dir);
    expect(await readRecurrencesFile(join(dir, 'recurrences.edn'), false, 'a')).toEqual([]);
    await expect(readRecurrencesFile(join(dir, 'recurrences.edn'), true, 'a')).rejects.toMatchObject({ code: 'recur/bad-config' });
    writeFileSync(join(dir, 'recurrences.edn'), '[{:process :track :cadence :daily}]');
    expect(await readRecurrencesFile(join(dir, 'recurrences.edn'), false, 'a')).toEqual([{ process: 'track', cadence: 'daily', actor: 'a' }]);
  });
});
