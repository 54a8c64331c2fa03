/**
 * This user's key for derived data (derived-file.ts): 32 random bytes in
 * `$XDG_STATE_HOME/tik/derived-data.key` (default `~/.local/state/tik/`), made on first use with
 * mode 0600. Derived files are authenticated with it, so an index is trusted only on the machine
 * and by the user that wrote it: one that arrives with a copied store or a repository is ignored.
 * Created by linking a complete temporary file into place, so concurrent first uses agree on one
 * key and never read a partial one. No key (an unwritable home) means no derived data: every read
 * is a miss, every write skipped.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

let loading: Promise<Uint8Array | undefined> | undefined;

export function derivedKey(): Promise<Uint8Array | undefined> {
  loading ??= load();
  return loading;
}

async function read(file: string): Promise<Uint8Array | undefined> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    return /^[0-9a-f]{64}$/.test(text) ? Buffer.from(text, 'hex') : undefined;
  } catch {
    return undefined;
  }
}

async function load(): Promise<Uint8Array | undefined> {
  const state = process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  const dir = join(state, 'tik');
  const file = join(dir, 'derived-data.key');
  const found = await read(file);
  if (found !== undefined) return found;
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await mkdirs(dir);
    await writeFile(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    await link(temp, file).catch(() => undefined); // taken by a concurrent first use: theirs is the key
  } catch {
    // unwritable: no derived data
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  return read(file);
}

const errno = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;

/**
 * `mkdir -p`, one level at a time: Node's recursive mkdir never settles on some pseudo file
 * systems (a state directory under /proc hangs it), and this must fail, not hang.
 */
async function mkdirs(path: string): Promise<void> {
  try {
    await mkdir(path, { mode: 0o700 });
  } catch (e) {
    if (errno(e) === 'EEXIST') return;
    if (errno(e) !== 'ENOENT' || dirname(path) === path) throw e;
    await mkdirs(dirname(path));
    await mkdir(path, { mode: 0o700 }).catch((e2: unknown) => {
      if (errno(e2) !== 'EEXIST') throw e2;
    });
  }
}
