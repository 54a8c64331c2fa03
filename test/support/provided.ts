import type { ServiceName } from './services.js';

/** A started service's URL, or why it is missing. */
export type ServiceInfo = { url: string } | { missing: string };

declare module 'vitest' {
  export interface ProvidedContext {
    services: Record<ServiceName, ServiceInfo>;
  }
}
