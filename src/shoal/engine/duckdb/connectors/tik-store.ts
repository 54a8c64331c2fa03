/**
 * tik file stores as a source: tickets, facts and events landed per query. (Filled in once the
 * tik kernel and file store land; until then the connector reports itself unavailable.)
 */
import type { CatalogEntry } from '../../catalog-entry.js';
import { ShoalError } from '../../../errors.js';
import type { LandedRows, LandingConnector } from './connector.js';

function unavailable(entry: CatalogEntry): ShoalError {
  return new ShoalError('SOURCE_UNAVAILABLE', `tik source "${entry.source.id}" cannot be read by this build`, {
    where: `sources.${entry.source.id}`,
    hint: 'the tik store connector is not available yet',
  });
}

export function tikStoreLanding(): LandingConnector {
  return Object.freeze({
    kind: 'land' as const,
    fetch(entry: CatalogEntry): Promise<LandedRows> {
      return Promise.reject(unavailable(entry));
    },
    ping(entry: CatalogEntry): Promise<void> {
      return Promise.reject(unavailable(entry));
    },
  });
}
