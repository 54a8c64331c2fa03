// Small EDN builders for the sync tests.
import { ednMap } from '../../../src/tik/edn/index.js';
import { kw, type EdnMap, type EdnValue } from '../../../src/tik/edn/value.js';

export { Instant, Uuid, kw, type EdnValue } from '../../../src/tik/edn/value.js';

export const ednMapOf = (entries: Record<string, EdnValue>): EdnMap => ednMap(Object.entries(entries).map(([k, v]) => [kw(k), v] as const));
