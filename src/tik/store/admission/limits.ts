/**
 * The size limits every path into a store shares (write, sync, import, migrate). One module, so
 * nothing a replica admits can later be refused by a bundle: what one replica stores, every other
 * replica can receive (convergence, law T2).
 */
export const ADMISSION_LIMITS = Object.freeze({
  /** One event's canonical bytes. */
  event: 16 << 20,
  /** One signature or witness sidecar. */
  sidecar: 1 << 20,
  /** One artifact blob (`tik attach`, a comment body). */
  blob: 256 << 20,
  /** One archived process definition's canonical text. */
  process: 16 << 20,
  /** A sidecar name on the wire. */
  name: 255,
});

/** A size in MiB for messages (`16 MiB`). */
export function mebibytes(n: number): string {
  return `${Math.round((n / (1 << 20)) * 10) / 10} MiB`;
}
