/**
 * The probe endpoints (health-plugin.ts). They carry no data and perform no action, and
 * orchestrators call them by pod IP: the Host allow-list and the audit log leave them out.
 */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/live', '/ready', '/health', '/metrics']);

/** The path of a request URL, without its query string. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}
