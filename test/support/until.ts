/** Polls until `check` returns a value; the deadline only guards against a hang (nothing is timed). */
export async function until<T>(what: string, check: () => Promise<T | undefined>, deadlineMs = 60_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise<void>((r) => setTimeout(r, 100));
  }
}
