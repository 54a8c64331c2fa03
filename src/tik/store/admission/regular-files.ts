import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { TikError } from '../../errors.js';

/** How many entries a tree to import may hold (a bound on the walk, far above real stores). */
export const MAX_TREE_ENTRIES = 10_000_000;

/**
 * Walks `dir` with `lstat` (links are never followed) and refuses (`import/link`,
 * `import/special-file`) the first symbolic link, socket, FIFO or device below it: a tree to
 * import holds directories and regular files only, so nothing outside it can be copied in.
 */
export function refuseLinks(dir: string): void {
  const stack: string[] = [''];
  let seen = 0;
  while (stack.length > 0) {
    const rel = stack.pop()!;
    for (const d of readdirSync(join(dir, rel), { withFileTypes: true })) {
      if (++seen > MAX_TREE_ENTRIES) throw new TikError('import/too-large', `${dir} holds more than ${MAX_TREE_ENTRIES} entries`, { where: dir, hint: 'import a smaller tree' });
      const path = rel === '' ? d.name : `${rel}/${d.name}`;
      if (d.isDirectory()) stack.push(path);
      else if (d.isSymbolicLink()) {
        throw new TikError('import/link', `${path} is a symbolic link; import never follows links`, { where: join(dir, path), hint: 'replace the link by a copy of the file it points to (if it belongs in the store), or remove it' });
      } else if (!d.isFile()) {
        const kind = lstatSync(join(dir, path)).isFIFO() ? 'a FIFO' : 'a special file';
        throw new TikError('import/special-file', `${path} is ${kind}, not a regular file`, { where: join(dir, path), hint: 'a tree to import holds directories and regular files only; remove it' });
      }
    }
  }
}
