import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, supportStore, tik } from './harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

describe('tik board', () => {
  it('writes one self-contained page: a column per current stage, facts, what is missing, settled apart', async () => {
    const d = await supportStore();
    dirs.push(d);
    const fresh = (await tik(d, ['new', 'support-request', '--title', 'Fresh <script>alert(1)</script>'])).stdout.trim();
    const triaged = (await tik(d, ['new', 'support-request', '--title', 'Login fails'])).stdout.trim();
    const done = (await tik(d, ['new', 'support-request', '--title', 'Typo'])).stdout.trim();
    await tik(d, ['set', triaged, 'category=technical', 'severity=high']);
    writeFileSync(join(d, 'crash.sh'), 'x');
    await tik(d, ['set', done, 'category=technical', 'severity=high', 'resolution.ref=abcdef123456']);
    await tik(d, ['attach', done, 'crash.sh']);
    await tik(d, ['--actor', 'customer', 'set', done, 'customer.ack=true']);
    const r = await tik(d, ['board', 'board.html']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('wrote board.html');
    const html = readFileSync(join(d, 'board.html'), 'utf8');
    // self-contained: no script, no external resource
    expect(html).not.toMatch(/<script|<link|src=|https?:/i);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    // columns in definition order, each ticket in its current stage's column
    const col = (stage: string): string => html.split(`<h3>${stage} `)[1]?.split('<div class="col">')[0] ?? '';
    expect(col(':received')).toContain(`id="t-${fresh}"`);
    expect(col(':triaged')).toContain(`id="t-${triaged}"`);
    expect(col(':triaged')).not.toContain(`id="t-${fresh}"`);
    expect(html).toContain('<code>[:severity] = :high</code>');
    expect(html).toMatch(/to reach <b>:triaged<\/b>/);
    const settled = html.split('<summary>settled (1)</summary>')[1] ?? '';
    expect(settled).toContain(`id="t-${done}"`);
    // printed when no file is given
    const printed = await tik(d, ['board']);
    expect(printed.stdout).toContain('<title>tik board</title>');
  });

  it('a file it cannot write is a clear error', async () => {
    const d = await supportStore();
    dirs.push(d);
    const r = await tik(d, ['board', 'roles.edn/board.html']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/store\/io: cannot write roles.edn\/board.html/);
  });
});
