/**
 * A small Prometheus text-format registry: counters and gauges with labels. Enough for
 * `/metrics` without pulling in a metrics client; each instance reports only its own counts.
 */
type Labels = Readonly<Record<string, string>>;

interface Series {
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly values: Map<string, { labels: Labels; value: number }>;
}

const labelKey = (labels: Labels): string => {
  const keys = Object.keys(labels);
  // (one label or none: the common series, counted on every request)
  if (keys.length <= 1) return keys.length === 0 ? '' : `${keys[0]}=${labels[keys[0]!]}`;
  return keys
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
};

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

export class MetricsRegistry {
  private readonly series = new Map<string, Series>();
  private readonly collectors = new Set<() => void>();

  /** Run `collect` before every render (a gauge read from the runtime); returns the function that removes it. */
  beforeRender(collect: () => void): () => void {
    this.collectors.add(collect);
    return () => void this.collectors.delete(collect);
  }

  private get(name: string, help: string, type: Series['type']): Series {
    let s = this.series.get(name);
    if (!s) {
      s = { help, type, values: new Map() };
      this.series.set(name, s);
    }
    return s;
  }

  /** Declare a metric so it is exported (at 0) before its first observation. */
  declare(name: string, help: string, type: Series['type'] = 'counter'): void {
    this.get(name, help, type);
  }

  inc(name: string, labels: Labels = {}, by = 1, help = name): void {
    const s = this.get(name, help, 'counter');
    const k = labelKey(labels);
    const cur = s.values.get(k);
    if (cur) cur.value += by;
    else s.values.set(k, { labels, value: by });
  }

  set(name: string, value: number, labels: Labels = {}, help = name): void {
    const s = this.get(name, help, 'gauge');
    s.values.set(labelKey(labels), { labels, value });
  }

  /** Whether a series has a value for these labels. */
  has(name: string, labels: Labels = {}): boolean {
    return this.series.get(name)?.values.has(labelKey(labels)) ?? false;
  }

  value(name: string, labels: Labels = {}): number {
    return this.series.get(name)?.values.get(labelKey(labels))?.value ?? 0;
  }

  render(): string {
    for (const collect of this.collectors) collect();
    const out: string[] = [];
    for (const [name, s] of [...this.series].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      out.push(`# HELP ${name} ${s.help}`, `# TYPE ${name} ${s.type}`);
      if (s.values.size === 0 && s.type === 'counter') out.push(`${name} 0`);
      for (const { labels, value } of s.values.values()) {
        const ls = Object.keys(labels)
          .sort()
          .map((k) => `${k}="${escapeLabel(labels[k] ?? '')}"`)
          .join(',');
        out.push(`${name}${ls ? `{${ls}}` : ''} ${value}`);
      }
    }
    return `${out.join('\n')}\n`;
  }
}

/** The cache metrics every tier reports, labelled `tier` (`result`, `hot`). */
export const CACHE_METRICS = {
  hits: 'shoal_cache_hits_total',
  misses: 'shoal_cache_misses_total',
  fallbacks: 'shoal_cache_fallbacks_total',
  bytes: 'shoal_cache_bytes',
} as const;

export type CacheTier = 'result' | 'hot';

/**
 * Declare the cache metrics of a tier so `/metrics` exports them at 0 before the first lookup.
 * Idempotent: counts and a bytes value already observed are kept.
 */
export function declareCacheMetrics(metrics: MetricsRegistry, tier: CacheTier): void {
  const labels = { tier };
  metrics.inc(CACHE_METRICS.hits, labels, 0, 'cache lookups answered from the cache, by tier');
  metrics.inc(CACHE_METRICS.misses, labels, 0, 'cache lookups answered live (absent, expired or uncacheable), by tier');
  metrics.inc(CACHE_METRICS.fallbacks, labels, 0, 'cache lookups answered live because the cache store failed, by tier');
  if (!metrics.has(CACHE_METRICS.bytes, labels)) metrics.set(CACHE_METRICS.bytes, 0, labels, 'bytes held by the cache, by tier');
}
