import { TikError } from '../errors.js';
import { parseAssignment } from '../app/kv-args.js';
import type { Outcome, TikService } from '../app/tik-service.js';

/** One write of the HTTP API, typed (never argv): what `execute` runs as an authenticated actor. */
export type WriteOp =
  | { readonly verb: 'new'; readonly process: string; readonly title?: string | undefined }
  | { readonly verb: 'set'; readonly ticket: string; readonly facts: readonly { readonly key: string; readonly value: string }[] }
  | { readonly verb: 'retract'; readonly ticket: string; readonly key: string; readonly reason?: string | undefined }
  | { readonly verb: 'dispute'; readonly ticket: string; readonly key: string; readonly reason?: string | undefined; readonly withdraw?: boolean | undefined }
  | { readonly verb: 'comment'; readonly ticket: string; readonly text: string }
  | { readonly verb: 'attest'; readonly ticket: string; readonly claim: string; readonly body?: string | undefined };

/** The write verbs of the API. */
export const WRITE_VERBS = Object.freeze(['new', 'set', 'retract', 'dispute', 'comment', 'attest'] as const);

/** Runs a typed write against the service as `actor`. */
export function execute(svc: TikService, actor: string, op: WriteOp): Promise<Outcome<unknown>> {
  switch (op.verb) {
    case 'new':
      return svc.create({ actor, process: op.process, title: op.title });
    case 'set':
      return svc.assert({ actor, ticket: op.ticket, facts: op.facts });
    case 'retract':
      return svc.retract({ actor, ticket: op.ticket, key: op.key, reason: op.reason });
    case 'dispute':
      return svc.dispute({ actor, ticket: op.ticket, key: op.key, reason: op.reason, withdraw: op.withdraw });
    case 'comment':
      return svc.comment({ actor, ticket: op.ticket, text: op.text });
    case 'attest':
      return svc.attest({ actor, ticket: op.ticket, claim: op.claim, body: op.body });
  }
}

/** The typed route (path and JSON body) that carries `op`, e.g. to forward it to another shard. */
export function typedRequest(op: WriteOp, actor: string | undefined): { path: string; body: Record<string, unknown> } {
  const a = actor !== undefined ? { actor } : {};
  const t = (rest: string): string => `/api/tickets/${'ticket' in op ? encodeURIComponent(op.ticket) : ''}/${rest}`;
  switch (op.verb) {
    case 'new':
      return { path: '/api/tickets', body: { process: op.process, ...(op.title !== undefined ? { title: op.title } : {}), ...a } };
    case 'set':
      return { path: t('facts'), body: { facts: op.facts, ...a } };
    case 'retract':
      return { path: t('retract'), body: { key: op.key, ...(op.reason !== undefined ? { reason: op.reason } : {}), ...a } };
    case 'dispute':
      return { path: t('dispute'), body: { key: op.key, ...(op.reason !== undefined ? { reason: op.reason } : {}), ...(op.withdraw ? { withdraw: true } : {}), ...a } };
    case 'comment':
      return { path: t('comments'), body: { text: op.text, ...a } };
    case 'attest':
      return { path: t('attestations'), body: { claim: op.claim, ...(op.body !== undefined ? { body: op.body } : {}), ...a } };
  }
}

/** Each verb's options: name → takes a value. Only these; never a global option (`--root`, `--actor`, …). */
const OPTIONS: Readonly<Record<WriteOp['verb'], Readonly<Record<string, boolean>>>> = {
  new: { '--title': true },
  set: {},
  retract: { '--reason': true },
  dispute: { '--reason': true, '--withdraw': false },
  comment: {},
  attest: { '--body': true },
};

const usage = (verb: string, message: string, hint: string): TikError => new TikError('cli/usage', `${verb}: ${message}`, { where: 'args', hint });

/**
 * The old `POST /api/<verb> {args}` form, parsed by this strict parser into the same typed write
 * (commander is never run): only the verb's own options are known, an option's value is taken
 * whatever it looks like (`--title -42`), `--` ends the options, and any other argument starting
 * with `-` is refused (`server/bad-option`). Positional counts are exact.
 */
export function parseWriteArgs(verb: WriteOp['verb'], args: readonly string[]): WriteOp {
  const known = OPTIONS[verb];
  const opts = new Map<string, string | true>();
  const pos: string[] = [];
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (ended || !a.startsWith('-') || a === '-') {
      pos.push(a);
      continue;
    }
    if (a === '--') {
      ended = true;
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 && a.startsWith('--') ? a.slice(0, eq) : a;
    if (!Object.hasOwn(known, name)) {
      const allowed = Object.keys(known);
      throw new TikError('server/bad-option', `option ${JSON.stringify(name)} is not accepted by the write API for ${verb}`, {
        where: 'args',
        hint: allowed.length > 0 ? `allowed: ${allowed.join(' ')}` : `${verb} takes no options over the API`,
      });
    }
    if (opts.has(name)) throw usage(verb, `option ${name} is given twice`, 'give each option once');
    if (known[name]) {
      if (eq > 0) opts.set(name, a.slice(eq + 1));
      else if (i + 1 < args.length) opts.set(name, args[++i]!);
      else throw usage(verb, `option ${name} needs a value`, `e.g. ${name} text`);
    } else {
      if (eq > 0) throw usage(verb, `option ${name} takes no value`, `write ${name} alone`);
      opts.set(name, true);
    }
  }
  const str = (n: string): string | undefined => {
    const v = opts.get(n);
    return typeof v === 'string' ? v : undefined;
  };
  const exactly = (n: number, shape: string): void => {
    if (pos.length !== n) throw usage(verb, `expected ${shape}, got ${pos.length} argument(s)`, `args: ${shape}`);
  };
  const atLeast = (n: number, shape: string): void => {
    if (pos.length < n) throw usage(verb, `expected ${shape}, got ${pos.length} argument(s)`, `args: ${shape}`);
  };
  switch (verb) {
    case 'new':
      exactly(1, '<process> [--title T]');
      return { verb, process: pos[0]!, title: str('--title') };
    case 'set': {
      atLeast(2, '<ticket> <key=value>…');
      const facts = pos.slice(1).map(parseAssignment).map((a) => ({ key: a.key, value: a.valueText }));
      return { verb, ticket: pos[0]!, facts };
    }
    case 'retract':
      exactly(2, '<ticket> <key> [--reason R]');
      return { verb, ticket: pos[0]!, key: pos[1]!, reason: str('--reason') };
    case 'dispute':
      exactly(2, '<ticket> <key> [--reason R] [--withdraw]');
      return { verb, ticket: pos[0]!, key: pos[1]!, reason: str('--reason'), withdraw: opts.has('--withdraw') };
    case 'comment':
      atLeast(2, '<ticket> <text>…');
      return { verb, ticket: pos[0]!, text: pos.slice(1).join(' ') };
    case 'attest':
      exactly(2, '<ticket> <claim> [--body MAP]');
      return { verb, ticket: pos[0]!, claim: pos[1]!, body: str('--body') };
  }
}
