/**
 * Warnings an operation had collected before it failed, kept beside the error so that the CLI
 * prints them before the error (apart from tik-service.ts so that the CLI's error path does not load
 * the whole application layer at start-up).
 */
const earlier = new WeakMap<Error, readonly string[]>();

export function rememberWarnings(e: Error, warnings: readonly string[]): void {
  earlier.set(e, warnings);
}

/** The warnings an operation had collected before it failed with `e` (printed before the error). */
export function warningsBefore(e: unknown): readonly string[] {
  return e instanceof Error ? (earlier.get(e) ?? []) : [];
}
