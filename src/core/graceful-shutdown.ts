/**
 * Graceful shutdown of a server process behind a load balancer (`shoal serve`, `tik serve`).
 *
 * SIGTERM or SIGINT: `drain()` at once (the server's `/ready` turns 503, so an active health check
 * takes it out of rotation), requests keep being served for `drainMs` (the balancer needs a few
 * checks to notice), then `close()` stops accepting connections and lets requests in flight
 * finish; the process exits 0. The whole sequence is bounded by `graceMs` from the signal: past it
 * the process exits 1 whatever is still running. A second signal exits 1 at once.
 */
export interface GracefulShutdown {
  /** Milliseconds between the signal and closing the listener (at most `graceMs`). */
  readonly drainMs: number;
  /** Milliseconds from the signal to a forced exit. */
  readonly graceMs: number;
  /** Turn `/ready` to 503. */
  drain(): void;
  /** Stop listening, finish requests in flight, release what the process holds. */
  close(): Promise<void>;
  /** One line per step, for the process's log (stderr). */
  log(message: string): void;
  /** For tests: what exits (default process.exit). */
  readonly exit?: (code: number) => void;
}

/** Installs the SIGTERM/SIGINT handlers; `trigger` runs what a signal runs, `uninstall` removes them (tests). */
export function onShutdownSignals(s: GracefulShutdown): { trigger: () => void; uninstall: () => void } {
  const exit = s.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const stop = (): void => {
    if (stopping) {
      s.log('second signal: exiting at once');
      exit(1);
      return;
    }
    stopping = true;
    const started = Date.now();
    s.drain();
    s.log(`draining: /ready answers 503; closing the listener in ${s.drainMs} ms, exiting within ${s.graceMs} ms`);
    // unref'd: a close that finishes early exits first; one that overruns is cut off here
    setTimeout(() => {
      s.log(`shutdown grace of ${s.graceMs} ms overran: exiting with requests still in flight`);
      exit(1);
    }, s.graceMs).unref();
    setTimeout(() => {
      s.log('closing: no new connections; waiting for requests in flight');
      void s.close().then(
        () => {
          s.log(`stopped cleanly ${Date.now() - started} ms after the signal`);
          exit(0);
        },
        (e: unknown) => {
          s.log(`close failed: ${(e as Error).message}`);
          exit(1);
        },
      );
    }, Math.min(s.drainMs, s.graceMs));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return {
    trigger: stop,
    uninstall: () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
    },
  };
}

/** Parses a seconds option (`--drain-delay`, `--shutdown-grace`) into milliseconds; undefined when invalid. */
export function secondsToMs(text: string, max: number): number | undefined {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > max) return undefined;
  return Math.round(n * 1000);
}
