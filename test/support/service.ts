/**
 * What an integration test file calls to get a service URL. Outside CI a missing service makes
 * the suite skip (the global setup already printed why, loudly); in CI it can't be missing.
 */
import { inject } from 'vitest';
import type { ServiceName } from './services.js';
import './provided.js';

export interface ServiceHandle {
  readonly url: string | undefined;
  readonly skip: boolean;
}

export function service(name: ServiceName): ServiceHandle {
  const info = inject('services')?.[name];
  if (!info) throw new Error(`service ${name} was not provided: is this file under test/integration/?`);
  if ('missing' in info) return { url: undefined, skip: true };
  return { url: info.url, skip: false };
}
