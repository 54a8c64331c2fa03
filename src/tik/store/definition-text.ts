import { CodedError } from '../../core/errors.js';
import { isMap, readEdn } from '../edn/index.js';
import { TikError } from '../errors.js';

/**
 * Refuse a named definition's text unless it reads as one EDN map (comments allowed), before any
 * store writes it to `processes/<name>.edn`. Shared by every backend.
 */
export function checkDefinitionText(name: string, text: string): void {
  const where = `processes/${name}.edn`;
  let value;
  try {
    value = readEdn(text, where);
  } catch (e) {
    throw new TikError('store/bad-definition', `${where} would not be readable: ${e instanceof Error ? e.message : String(e)}`, {
      where,
      ...(e instanceof CodedError && e.position ? { position: e.position } : {}),
      hint: 'a definition file holds one EDN map (comments allowed)',
    });
  }
  if (!isMap(value)) {
    throw new TikError('store/bad-definition', `${where} would not hold a map`, { where, hint: 'a definition file holds one EDN map' });
  }
}
