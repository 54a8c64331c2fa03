/**
 * One authenticated pgwire connection: the simple query protocol (each statement of a Query
 * message answered in turn, stopping at the first error) and the extended protocol (Parse, Bind,
 * Describe, Execute with row limits and PortalSuspended, Close, Flush, Sync; after an error every
 * message up to Sync is discarded). Statements are answered by session commands, catalog answers
 * or — for everything that reads data — the governed path (governed-query.ts). Rows stream: each
 * batch is written as it comes, and the next is only pulled once the socket has drained.
 */
import type { Socket } from 'node:net';
import { ShoalError } from '../errors.js';
import type { ColumnInfo } from '../server/query-service.js';
import { decodeParameter, parameterLiteral } from './bind-parameters.js';
import { answerCatalogQuery, isCatalogQuery } from './catalog-answers.js';
import type { CancelRegistry } from './cancel-registry.js';
import { governedQuery, roleOf, type PgContext, type PgIdentity } from './governed-query.js';
import { BodyReader, type MessageReader } from './message-reader.js';
import * as msg from './message-writer.js';
import { PgProtocolError } from './pg-protocol-error.js';
import { encodeCell, pgTypeOf, OID, type PgType } from './pg-types.js';
import { sessionCommand, type SessionCommand } from './session-commands.js';
import { isBlank, parameterCount, splitStatements, substituteParameters } from './sql-text.js';
import { sessionValues } from '../auth/session-values.js';
import { errorFieldsOf } from './sqlstate.js';

/** The server's parameters reported at startup (ParameterStatus) and by SHOW. */
export const SERVER_PARAMETERS: Readonly<Record<string, string>> = {
  server_version: '15.0',
  server_encoding: 'UTF8',
  client_encoding: 'UTF8',
  DateStyle: 'ISO, MDY',
  IntervalStyle: 'postgres',
  integer_datetimes: 'on',
  standard_conforming_strings: 'on',
  TimeZone: 'UTC',
  is_superuser: 'off',
  default_transaction_read_only: 'on',
  in_hot_standby: 'off',
};

/** A statement being answered: its columns (none for a command), its rows one by one, its tag. */
interface Execution {
  readonly columns: readonly ColumnInfo[] | undefined;
  next(): Promise<readonly unknown[] | undefined>;
  tag(rows: number): string;
  /** Release what it holds; `error` is how it ended (undefined: completed or abandoned). */
  close(error?: unknown): void;
}

interface Prepared {
  readonly sql: string;
  readonly paramTypes: readonly number[];
  readonly paramCount: number;
}

interface Portal {
  readonly sql: string;
  readonly formats: readonly number[];
  execution?: Execution;
  types?: readonly PgType[];
  sent: number;
  done: boolean;
}

const rows = (columns: readonly ColumnInfo[], list: readonly (readonly unknown[])[]): Execution => {
  let i = 0;
  return { columns, next: async () => list[i++], tag: (n) => `SELECT ${n}`, close: () => undefined };
};

const command = (tag: string): Execution => ({ columns: undefined, next: async () => undefined, tag: () => tag, close: () => undefined });

export class PgConnection {
  private tx: msg.TxStatus = 'I';
  private role: string | undefined;
  private vars: Record<string, string> = {};
  private readonly settings = new Map<string, string>();
  private readonly statements = new Map<string, Prepared>();
  private readonly portals = new Map<string, Portal>();
  /** The queries running now (a suspended portal's counts), aborted by a CancelRequest or a close. */
  private readonly running = new Set<AbortController>();
  private cancelled = false;
  private closed = false;
  private readonly pid: number;

  constructor(
    private readonly ctx: PgContext,
    private readonly socket: Socket,
    private readonly reader: MessageReader,
    private readonly who: Omit<PgIdentity, 'role' | 'vars'>,
    private readonly cancels: CancelRegistry,
    startup: ReadonlyMap<string, string>,
    options: ReadonlyMap<string, string>,
  ) {
    this.role = options.get('role');
    this.user = startup.get('user') ?? '';
    this.database = startup.get('database') ?? this.user;
    for (const [k, v] of options) if (k.startsWith('provisa.')) this.vars[k] = v;
    for (const [k, v] of startup) if (!['user', 'database', 'options', 'replication'].includes(k)) this.settings.set(k.toLowerCase(), v);
    const key = cancels.register(() => this.cancel());
    this.pid = key.pid;
    socket.once('close', () => this.shutdown());
    this.secret = key.secret;
  }

  private readonly secret: number;
  private readonly user: string;
  private readonly database: string;

  private identity(): PgIdentity {
    return { principal: this.who.principal, role: this.role, vars: this.vars };
  }

  private cancel(): void {
    // a cancel that arrives between queries has nothing to stop (PostgreSQL ignores it too)
    if (this.running.size === 0) return;
    this.cancelled = true;
    for (const c of this.running) c.abort(new ShoalError('QUERY_CANCELLED', 'canceling statement due to user request', { hint: 'the client sent a CancelRequest' }));
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    this.cancels.unregister(this.pid);
    for (const c of this.running) c.abort();
    for (const p of this.portals.values()) p.execution?.close();
    this.portals.clear();
  }

  /** Write, and wait while the socket's buffer is full (backpressure), or until it closes. */
  private async send(b: Buffer): Promise<void> {
    if (this.closed) throw new ShoalError('QUERY_CANCELLED', 'the client went away');
    if (this.socket.write(b)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  /** A message is being handled (between reading it and its answer). */
  private busy = false;
  private closing = false;
  private terminated = false;

  /**
   * The server is shutting down: an idle session ends now, a busy one once its statement is
   * answered (after the ReadyForQuery of a Query, or of a Sync). No new statement starts.
   */
  drainAndEnd(): void {
    this.closing = true;
    if (!this.busy) this.terminate();
  }

  private terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.socket.end(msg.errorResponse({ severity: 'FATAL', sqlstate: '57P01', message: 'terminating connection due to administrator command', hint: 'this instance is shutting down; reconnect (through the balancer, another instance answers)' }));
  }

  /** Check the startup role and variables, greet the client, then serve messages until the end. */
  async run(): Promise<void> {
    try {
      const role = await roleOf(this.ctx, this.identity());
      sessionValues(this.who.principal, role.id, this.vars, this.ctx.auth.config);
    } catch (e) {
      this.socket.end(msg.errorResponse(errorFieldsOf(e, undefined, 'FATAL')));
      return;
    }
    const greeting = [msg.authenticationOk()];
    const params = { ...SERVER_PARAMETERS, application_name: this.settings.get('application_name') ?? '', session_authorization: this.who.principal.id };
    for (const [k, v] of Object.entries(params)) greeting.push(msg.parameterStatus(k, v));
    greeting.push(msg.backendKeyData(this.pid, this.secret), msg.readyForQuery(this.tx));
    await this.send(Buffer.concat(greeting));
    let skipping = false;
    if (this.closing) this.terminate();
    for (;;) {
      const m = await this.reader.message();
      if (!m || m.type === 'X' || this.terminated) break;
      if (skipping && m.type !== 'S') continue;
      skipping = false;
      this.busy = true;
      try {
        await this.dispatch(m.type, new BodyReader(m.body));
      } catch (e) {
        if (e instanceof PgProtocolError && e.fatal) throw e;
        await this.fail(e);
        // an error in the extended protocol discards everything up to Sync
        skipping = m.type !== 'Q' && m.type !== 'S';
        if (m.type === 'Q') await this.send(msg.readyForQuery(this.tx));
      } finally {
        this.busy = false;
      }
      // shutting down: end at the first point where the client holds a whole answer
      if (this.closing && (m.type === 'Q' || m.type === 'S')) {
        this.terminate();
        break;
      }
    }
    if (!this.terminated) this.socket.end();
  }

  private async fail(e: unknown, sql?: string, offset = 0): Promise<void> {
    if (this.tx === 'T') this.tx = 'E';
    const fields = errorFieldsOf(this.cancelled && !(e instanceof ShoalError && e.code === 'QUERY_CANCELLED') ? new ShoalError('QUERY_CANCELLED', 'canceling statement due to user request') : e, sql, 'ERROR', offset);
    this.cancelled = false;
    await this.send(msg.errorResponse(fields));
  }

  private async dispatch(type: string, body: BodyReader): Promise<void> {
    switch (type) {
      case 'Q':
        return this.simpleQuery(body.cstring());
      case 'P':
        return this.parse(body);
      case 'B':
        return this.bind(body);
      case 'D':
        return this.describe(body.byte(), body.cstring());
      case 'E':
        return this.execute(body.cstring(), body.int32());
      case 'C':
        return this.close(body.byte(), body.cstring());
      case 'H':
        return;
      case 'S':
        return this.sync();
      case 'p':
        throw new PgProtocolError('unexpected password message', '08P01', true);
      default:
        throw new PgProtocolError(`invalid frontend message type '${type}'`, '08P01', true);
    }
  }

  // -- simple query ------------------------------------------------------------------------

  private async simpleQuery(text: string): Promise<void> {
    const statements = splitStatements(text);
    if (statements.length === 0) await this.send(msg.emptyQueryResponse());
    for (const { sql, offset } of statements) {
      const portal: Portal = { sql, formats: [], sent: 0, done: false };
      try {
        // the simple protocol describes a result only when there is one (no NoData)
        const e = await this.start(portal);
        if (e.columns) await this.send(msg.rowDescription(fieldsOf(e.columns, [])));
        await this.stream(portal, 0);
      } catch (e) {
        portal.execution?.close(e);
        await this.fail(e, sql, offset);
        break;
      }
    }
    await this.send(msg.readyForQuery(this.tx));
  }

  // -- extended protocol -------------------------------------------------------------------

  private async parse(body: BodyReader): Promise<void> {
    const name = body.cstring();
    const text = body.cstring();
    const n = body.int16();
    const paramTypes: number[] = [];
    for (let i = 0; i < n; i++) paramTypes.push(body.int32());
    const statements = splitStatements(text);
    if (statements.length > 1) throw new PgProtocolError('cannot insert multiple commands into a prepared statement', '42601');
    if (name !== '' && this.statements.has(name)) throw new PgProtocolError(`prepared statement "${name}" already exists`, '42P05');
    const sql = statements[0]?.sql ?? '';
    const count = Math.max(parameterCount(sql), paramTypes.length);
    this.statements.set(name, { sql, paramTypes: Array.from({ length: count }, (_, i) => paramTypes[i] ?? 0), paramCount: count });
    await this.send(msg.parseComplete());
  }

  private async bind(body: BodyReader): Promise<void> {
    const portalName = body.cstring();
    const stmtName = body.cstring();
    const stmt = this.statements.get(stmtName);
    if (!stmt) throw new PgProtocolError(`prepared statement "${stmtName}" does not exist`, '26000');
    const nFormats = body.int16();
    const formats: number[] = [];
    for (let i = 0; i < nFormats; i++) formats.push(body.int16());
    const nParams = body.int16();
    if (nParams !== stmt.paramCount) throw new PgProtocolError(`bind message supplies ${nParams} parameters, but prepared statement "${stmtName}" requires ${stmt.paramCount}`);
    const literals: string[] = [];
    for (let i = 0; i < nParams; i++) {
      const len = body.int32();
      const raw = len === -1 ? null : body.bytes(len);
      const format = formats.length === 0 ? 0 : formats.length === 1 ? formats[0]! : formats[i] ?? 0;
      const oid = stmt.paramTypes[i] ?? 0;
      literals.push(parameterLiteral(raw === null ? null : decodeParameter(raw, oid, format), oid));
    }
    const nResult = body.int16();
    const resultFormats: number[] = [];
    for (let i = 0; i < nResult; i++) resultFormats.push(body.int16());
    if (portalName !== '' && this.portals.has(portalName)) throw new PgProtocolError(`cursor "${portalName}" already exists`, '42P03');
    this.closePortal(portalName);
    this.portals.set(portalName, { sql: substituteParameters(stmt.sql, literals), formats: resultFormats, sent: 0, done: false });
    await this.send(msg.bindComplete());
  }

  private async describe(kind: string, name: string): Promise<void> {
    if (kind === 'S') {
      const stmt = this.statements.get(name);
      if (!stmt) throw new PgProtocolError(`prepared statement "${name}" does not exist`, '26000');
      // an untyped parameter is described as text: the client then sends it as a string literal
      await this.send(msg.parameterDescription(stmt.paramTypes.map((t) => (t === 0 ? OID.text : t))));
      const columns = await this.describeStatement(stmt);
      await this.send(columns ? msg.rowDescription(fieldsOf(columns, [])) : msg.noData());
      return;
    }
    if (kind !== 'P') throw new PgProtocolError(`invalid DESCRIBE message subtype '${kind}'`);
    const portal = this.portals.get(name);
    if (!portal) throw new PgProtocolError(`portal "${name}" does not exist`, '34000');
    await this.describePortal(portal);
  }

  /**
   * A statement's result columns before it is bound: a catalog answer's or a command's are
   * known; a query's are those of the query with every parameter NULL, read with LIMIT 0
   * through the governed path (so a role sees only the columns it may read).
   */
  private async describeStatement(stmt: Prepared): Promise<readonly ColumnInfo[] | undefined> {
    const unbound = substituteParameters(stmt.sql, stmt.paramTypes.map(() => 'NULL'));
    const local = await this.local(unbound);
    if (local) return local.columns;
    const controller = new AbortController();
    this.running.add(controller);
    try {
      const g = await governedQuery(this.ctx, this.identity(), `SELECT * FROM (${unbound}) AS shoal_describe LIMIT 0`, controller.signal);
      const it = g.result.batches[Symbol.asyncIterator]();
      await it.return?.();
      g.close();
      return g.result.columns;
    } finally {
      this.running.delete(controller);
    }
  }

  /** Start the portal's statement (if not yet) and send its RowDescription or NoData. */
  private async describePortal(portal: Portal): Promise<void> {
    const e = await this.start(portal);
    if (!e.columns) {
      await this.send(msg.noData());
      return;
    }
    if (portal.formats.length > 1 && portal.formats.length !== e.columns.length) {
      throw new PgProtocolError(`bind message has ${portal.formats.length} result formats but query has ${e.columns.length} columns`);
    }
    await this.send(msg.rowDescription(fieldsOf(e.columns, portal.formats)));
  }

  private async execute(name: string, maxRows: number): Promise<void> {
    const portal = this.portals.get(name);
    if (!portal) throw new PgProtocolError(`portal "${name}" does not exist`, '34000');
    try {
      await this.stream(portal, maxRows);
    } catch (e) {
      this.closePortal(name, e);
      throw e;
    }
  }

  private async close(kind: string, name: string): Promise<void> {
    if (kind === 'S') this.statements.delete(name);
    else if (kind === 'P') this.closePortal(name);
    else throw new PgProtocolError(`invalid CLOSE message subtype '${kind}'`);
    await this.send(msg.closeComplete());
  }

  private async sync(): Promise<void> {
    // the implicit transaction ends at Sync: its portals with it (a block keeps them until COMMIT)
    if (this.tx === 'I') for (const name of [...this.portals.keys()]) this.closePortal(name);
    else this.closePortal('');
    await this.send(msg.readyForQuery(this.tx));
  }

  private closePortal(name: string, error?: unknown): void {
    const p = this.portals.get(name);
    if (!p) return;
    this.portals.delete(name);
    p.execution?.close(error);
  }

  // -- execution ---------------------------------------------------------------------------

  private async start(portal: Portal): Promise<Execution> {
    if (portal.execution) return portal.execution;
    if (this.tx === 'E' && !/^\s*(rollback|abort|commit|end)\b/i.test(portal.sql)) {
      throw new PgProtocolError('current transaction is aborted, commands ignored until end of transaction block', '25P02');
    }
    const e = (await this.local(portal.sql)) ?? (await this.governed(portal.sql));
    portal.execution = e;
    portal.types = e.columns?.map((c) => pgTypeOf(c.type));
    return e;
  }

  /** Send up to `maxRows` rows (0: all), then CommandComplete, or PortalSuspended when more remain. */
  private async stream(portal: Portal, maxRows: number): Promise<void> {
    const e = await this.start(portal);
    if (portal.done) {
      const tag = e.tag(0);
      await this.send(tag === '' ? msg.emptyQueryResponse() : msg.commandComplete(tag));
      return;
    }
    const types = portal.types ?? [];
    const formats = portal.formats;
    let batch: Buffer[] = [];
    let size = 0;
    let count = 0;
    for (;;) {
      if (maxRows > 0 && count >= maxRows) {
        batch.push(msg.portalSuspended());
        await this.send(Buffer.concat(batch));
        return;
      }
      const row = await e.next();
      if (row === undefined) break;
      const cells = row.map((v, i) => encodeCell(v, types[i]!, formats.length === 0 ? 0 : formats.length === 1 ? formats[0]! : formats[i]!));
      const b = msg.dataRow(cells);
      batch.push(b);
      size += b.length;
      count++;
      portal.sent++;
      if (size >= 64 * 1024) {
        await this.send(Buffer.concat(batch));
        batch = [];
        size = 0;
      }
    }
    portal.done = true;
    const tag = e.tag(portal.sent);
    batch.push(tag === '' ? msg.emptyQueryResponse() : msg.commandComplete(tag));
    await this.send(Buffer.concat(batch));
    e.close();
  }

  /** A session command or catalog answer, or undefined when `sql` is a query for the governed path. */
  private async local(sql: string): Promise<Execution | undefined> {
    if (isBlank(sql)) return { columns: undefined, next: async () => undefined, tag: () => '', close: () => undefined };
    const c = sessionCommand(sql);
    if (c) return this.session(c);
    if (!isCatalogQuery(sql)) return undefined;
    const role = await roleOf(this.ctx, this.identity());
    const domains = this.who.principal.scopes?.[role.id];
    const catalog = this.ctx.service.catalog?.({ role: role.id, ...(domains ? { domains } : {}) });
    const a = answerCatalogQuery(sql, catalog?.tables ?? []);
    return rows(a.columns, a.rows);
  }

  private async session(c: SessionCommand): Promise<Execution> {
    switch (c.kind) {
      case 'begin':
        if (this.tx === 'I') this.tx = 'T';
        return command('BEGIN');
      case 'commit': {
        const failed = this.tx === 'E';
        this.tx = 'I';
        return command(failed ? 'ROLLBACK' : 'COMMIT');
      }
      case 'rollback':
        this.tx = 'I';
        return command('ROLLBACK');
      case 'noop':
        return command(c.tag);
      case 'function': {
        const values: Readonly<Record<string, string | number>> = {
          current_catalog: this.database,
          current_database: this.database,
          current_schema: 'public',
          version: `PostgreSQL ${SERVER_PARAMETERS.server_version} (shoal)`,
          current_user: this.user,
          session_user: this.user,
          user: this.user,
          pg_backend_pid: this.pid,
        };
        return rows([{ name: c.column, type: c.fn === 'pg_backend_pid' ? 'integer' : 'text' }], [[values[c.fn] ?? null]]);
      }
      case 'show': {
        const value = c.name === 'role' ? (this.role ?? this.who.principal.defaultRole ?? 'none') : c.name.startsWith('provisa.') ? this.vars[c.name] : (this.settings.get(c.name) ?? Object.entries(SERVER_PARAMETERS).find(([k]) => k.toLowerCase() === c.name)?.[1]);
        if (value === undefined) throw new PgProtocolError(`unrecognized configuration parameter "${c.name}"`, '42704');
        return rows([{ name: c.name, type: 'text' }], [[value]]);
      }
      case 'set': {
        if (c.name === 'role') {
          const next = { ...this.identity(), role: c.value };
          await roleOf(this.ctx, next);
          this.role = c.value;
        } else if (c.name.startsWith('provisa.')) {
          const vars = { ...this.vars };
          if (c.value === undefined) delete vars[c.name];
          else vars[c.name] = c.value;
          const role = await roleOf(this.ctx, this.identity());
          sessionValues(this.who.principal, role.id, vars, this.ctx.auth.config);
          this.vars = vars;
        } else if (c.name === 'client_encoding' && c.value !== undefined && !/^(utf-?8|unicode)$/i.test(c.value)) {
          throw new PgProtocolError(`client_encoding ${c.value} is not supported: shoal speaks UTF8 only`, '22023');
        } else if (c.value === undefined) this.settings.delete(c.name);
        else this.settings.set(c.name, c.value);
        return command('SET');
      }
    }
  }

  private async governed(sql: string): Promise<Execution> {
    const controller = new AbortController();
    this.running.add(controller);
    let g;
    try {
      g = await governedQuery(this.ctx, this.identity(), sql, controller.signal);
    } catch (e) {
      this.running.delete(controller);
      throw e;
    }
    const audit = g.audit;
    const it = g.result.batches[Symbol.asyncIterator]();
    let batch: readonly (readonly unknown[])[] = [];
    let at = 0;
    let closed = false;
    const governed = g;
    return {
      columns: g.result.columns,
      next: async () => {
        while (at >= batch.length) {
          const r = await it.next();
          if (r.done) return undefined;
          batch = r.value;
          at = 0;
        }
        audit.rows = (audit.rows ?? 0) + 1;
        return batch[at++];
      },
      tag: (n) => `SELECT ${n}`,
      close: (error) => {
        if (closed) return;
        closed = true;
        this.running.delete(controller);
        // a portal closed before its end stops the query (the engine's resources go with it)
        if (!controller.signal.aborted) controller.abort();
        void it.return?.().catch(() => undefined);
        governed.close(error, this.cancelled);
      },
    };
  }
}

function fieldsOf(columns: readonly ColumnInfo[], formats: readonly number[]): msg.FieldDescription[] {
  return columns.map((c, i) => {
    const t = pgTypeOf(c.type);
    return { name: c.name, typeOid: t.oid, typeSize: t.size, typeModifier: t.modifier, format: formats.length === 0 ? 0 : formats.length === 1 ? formats[0]! : formats[i]! };
  });
}
