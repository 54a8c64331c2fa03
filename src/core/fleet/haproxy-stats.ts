/**
 * HAProxy's view of a fleet, read from its admin socket (`show stat`, CSV): for each server of
 * the backend its status (`UP`, `DOWN`, `UP 1/2` while rising, `NOLB`/`MAINT`, …).
 */
import { connect } from 'node:net';

export interface HaproxyServerView {
  readonly name: string;
  readonly status: string;
  /** Requests HAProxy sent to it since start. */
  readonly sessions: number;
  /** The last health check as HAProxy reports it (`L7OK`, `L7STS`, `L4CON`, `L4TOUT`, …). */
  readonly check: string;
}

/** One command on the admin socket; the answer text. Bounded by `timeoutMs`. */
export function haproxyCommand(socketPath: string, command: string, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socketPath);
    let out = '';
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no answer from the HAProxy admin socket ${socketPath} within ${timeoutMs} ms`));
    }, timeoutMs);
    s.on('connect', () => s.end(`${command}\n`));
    s.on('data', (d: Buffer) => (out += d.toString()));
    s.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    s.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

/** The servers of `backend` as `show stat` reports them. */
export function parseShowStat(csv: string, backend: string): HaproxyServerView[] {
  const lines = csv.split('\n').filter((l) => l.trim() !== '');
  const header = lines[0]?.replace(/^# /, '').split(',') ?? [];
  const col = (name: string): number => header.indexOf(name);
  const [px, sv, status, stot, check, bck] = [col('pxname'), col('svname'), col('status'), col('stot'), col('check_status'), col('bck')];
  const out: HaproxyServerView[] = [];
  for (const line of lines.slice(1)) {
    const f = line.split(',');
    // the members' unchecked last-resort entries are backups: not members
    if (f[px] !== backend || f[sv] === 'BACKEND' || f[sv] === 'FRONTEND' || f[bck] === '1') continue;
    out.push({ name: f[sv] ?? '', status: f[status] ?? '', sessions: Number(f[stot] ?? 0), check: f[check] ?? '' });
  }
  return out;
}

/** HAProxy's view of the fleet's backend. */
export async function haproxyView(socketPath: string): Promise<HaproxyServerView[]> {
  return parseShowStat(await haproxyCommand(socketPath, 'show stat'), 'members');
}
