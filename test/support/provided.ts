import type { ServiceName } from './services.js';

/** A started service's URL, or why it is missing. */
export type ServiceInfo = { url: string } | { missing: string };

/** The Trino the trino project runs against: a coordinator (maybe still booting) and maybe a worker. */
export type TrinoInfo =
  | { readonly url: string; readonly logDir?: string; readonly worker?: { readonly url: string; readonly nodeId: string; readonly logDir: string } }
  | { readonly missing: string };

declare module 'vitest' {
  export interface ProvidedContext {
    services: Record<ServiceName, ServiceInfo>;
    trino: TrinoInfo;
  }
}
