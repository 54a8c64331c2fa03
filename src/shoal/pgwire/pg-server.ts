/**
 * The PostgreSQL wire-protocol listener of `shoal serve --pg-port`: psql, node-postgres, JDBC
 * and BI tools connect to it as to a PostgreSQL server. Each connection authenticates with the
 * instance's authenticator and every statement that reads data goes through the same governed
 * path as `POST /data/sql` (governed-query.ts). Bounded: at most `maxConnections` connections
 * (more are refused with 53300), a startup phase that must end within `startupTimeoutMs`, and no
 * message longer than `maxMessage`.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { createSecureContext } from 'node:tls';
import { DEFAULT_LIMITS } from '../config/limits.js';
import { ConcurrencyLimit } from '../server/concurrency-limit.js';
import type { TlsMaterial } from '../server/tls-files.js';
import { CancelRegistry } from './cancel-registry.js';
import type { PgContext } from './governed-query.js';
import { errorResponse } from './message-writer.js';
import { PgConnection } from './pg-connection.js';
import { PgProtocolError } from './pg-protocol-error.js';
import { parseOptions, refuse, startup } from './startup.js';

export interface PgServerOptions {
  readonly context: Omit<PgContext, 'concurrency'> & { readonly concurrency?: ConcurrencyLimit };
  /** Answer SSLRequest with TLS under this certificate; absent: 'N'. */
  readonly tls?: TlsMaterial;
  /** Accept a cleartext password from a non-loopback peer without TLS (default false). */
  readonly insecurePassword?: boolean;
  /** Default 100. */
  readonly maxConnections?: number;
  /** Default 30 000. */
  readonly startupTimeoutMs?: number;
  /** The largest message accepted, in bytes; default 4 MiB + 1 KiB (the HTTP body limit and a margin). */
  readonly maxMessage?: number;
}

export interface PgServer {
  /** Listen; resolves to the bound port. */
  listen(port: number, host: string): Promise<number>;
  /**
   * Stop accepting; end every idle session now and every busy one once its statement is answered
   * (FATAL 57P01, as PostgreSQL's fast shutdown says it); resolves when the last socket is closed.
   * Connections still in their startup are dropped. The caller bounds the wait (--shutdown-grace).
   */
  close(): Promise<void>;
}

export function createPgServer(opts: PgServerOptions): PgServer {
  const ctx: PgContext = {
    ...opts.context,
    concurrency: opts.context.concurrency ?? new ConcurrencyLimit(opts.context.service.maxConcurrentQueries ?? DEFAULT_LIMITS.max_concurrent_queries),
  };
  const cancels = new CancelRegistry();
  const tls = opts.tls ? createSecureContext({ cert: opts.tls.cert, key: opts.tls.key }) : undefined;
  const maxConnections = opts.maxConnections ?? 100;
  const startupTimeoutMs = opts.startupTimeoutMs ?? 30_000;
  const maxMessage = opts.maxMessage ?? 4 * 1024 * 1024 + 1024;
  const sockets = new Set<Socket>();
  const sessions = new Map<Socket, PgConnection>();
  let closing = false;

  const serve = async (raw: Socket): Promise<void> => {
    // a client that never finishes its startup (or its password) holds a slot only this long
    const timer = setTimeout(() => raw.destroy(), startupTimeoutMs);
    let started;
    try {
      started = await startup(raw, { ctx, cancels, insecurePassword: opts.insecurePassword ?? false, maxMessage, ...(tls ? { tls } : {}) });
    } catch (e) {
      refuse(raw, e);
      return;
    } finally {
      clearTimeout(timer);
    }
    if (!started) return;
    const { socket, reader, params, principal } = started;
    socket.on('error', () => socket.destroy());
    const conn = new PgConnection(ctx, socket, reader, { principal }, cancels, params, parseOptions(params.get('options') ?? ''));
    sessions.set(raw, conn);
    raw.once('close', () => sessions.delete(raw));
    if (closing) conn.drainAndEnd();
    try {
      await conn.run();
    } catch (e) {
      // a framing error: nothing after it can be trusted to be a message boundary
      if (e instanceof PgProtocolError) socket.end(errorResponse({ severity: 'FATAL', sqlstate: e.sqlstate, message: e.message }));
      else socket.destroy();
    }
  };

  const server: Server = createServer({ noDelay: true }, (socket) => {
    if (sockets.size >= maxConnections) {
      socket.end(errorResponse({ severity: 'FATAL', sqlstate: '53300', message: 'sorry, too many clients already', hint: `this instance accepts ${maxConnections} PostgreSQL connections` }));
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    void serve(socket).catch(() => socket.destroy());
  });

  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const a = server.address();
          resolve(typeof a === 'object' && a ? a.port : port);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        closing = true;
        // resolves once every connection has closed
        server.close(() => resolve());
        for (const s of sockets) {
          const session = sessions.get(s);
          if (session) session.drainAndEnd();
          else s.destroy();
        }
      }),
  };
}
