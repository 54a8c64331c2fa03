/**
 * Runs `work` now and then every `intervalMs` after the previous run finished: runs never overlap,
 * a failed run is the work's own business (it logs), and `stop` waits for a run in progress.
 */
export class PeriodicLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly work: () => Promise<unknown>,
    private readonly intervalMs: number,
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.running = this.work().then(
        () => undefined,
        () => undefined,
      );
      void this.running.finally(() => {
        this.running = undefined;
        if (!this.stopped) this.timer = setTimeout(tick, this.intervalMs);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
