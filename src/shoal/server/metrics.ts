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

const labelKey = (labels: Labels): string =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

export class MetricsRegistry {
  private readonly series = new Map<string, Series>();

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

  value(name: string, labels: Labels = {}): number {
    return this.series.get(name)?.values.get(labelKey(labels))?.value ?? 0;
  }

  render(): string {
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
