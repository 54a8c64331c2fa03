import { writeFileAtomic } from '../../core/fs-atomic.js';
import { TikError } from '../errors.js';
import type { CliContext } from './context.js';

/** Write a page a lens rendered (`board`, `plan`) to `file`, atomically; a failure is `store/io` naming the file. */
export async function writeOutputFile(ctx: CliContext, file: string, text: string): Promise<void> {
  try {
    await writeFileAtomic(ctx.path(file), text);
  } catch (e) {
    throw new TikError('store/io', `cannot write ${file}: ${(e as Error).message}`, { where: file, hint: 'give a writable path (missing directories are created)' });
  }
}
