/**
 * A small client for Trino's REST statement protocol (`POST /v1/statement`, then follow
 * `nextUri` until it is gone). Our own rather than `trino-client` from npm: the protocol is a
 * handful of headers and one loop, we need lossless numbers (lossless-json.ts), the
 * PARAMETRIC_DATETIME capability (else Trino rounds timestamps to milliseconds for "legacy"
 * clients), cancellation by `DELETE nextUri` on an AbortSignal, and no new dependency.
 */
import { ShoalError } from '../../errors.js';
import { JsonNumber, type LosslessJson, parseLosslessJson, plainJson } from './lossless-json.js';

export interface TrinoClientOptions {
  /** Coordinator base URL, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** `X-Trino-User` (default `shoal`). */
  readonly user?: string;
  /** Default catalog and schema for one-part and two-part names. */
  readonly catalog?: string;
  readonly schema?: string;
}

export interface TrinoColumn {
  readonly name: string;
  /** Trino's type text, e.g. `decimal(12, 2)`, `timestamp(6)`, `varchar`. */
  readonly type: string;
}

export interface TrinoPage {
  readonly queryId: string;
  readonly columns: readonly TrinoColumn[];
  readonly rows: readonly (readonly LosslessJson[])[];
}

/** A failed query: Trino's error name and type; its message stays in `cause` (it can hold row values). */
export class TrinoQueryError extends ShoalError {
  constructor(
    readonly errorName: string,
    readonly errorType: string,
    readonly trinoMessage: string,
    readonly queryId: string,
  ) {
    super('ENGINE_QUERY_FAILED', `the engine could not run the query (Trino ${errorName})`, {
      hint: 'check the SQL against the registered tables and columns',
      cause: new Error(trinoMessage),
    });
  }
}

interface Response {
  readonly id?: string;
  readonly nextUri?: string;
  readonly columns?: readonly TrinoColumn[];
  readonly data?: readonly (readonly LosslessJson[])[];
  readonly error?: { readonly message?: string; readonly errorName?: string; readonly errorType?: string };
}

const RETRYABLE = new Set([502, 503, 504]);

function unavailable(url: string, cause: unknown): ShoalError {
  return new ShoalError('ENGINE_UNAVAILABLE', `the Trino coordinator at ${url} cannot be reached`, {
    where: 'federation_engine_url',
    hint: 'check that the coordinator is running and federation_engine_url points at it',
    cause,
  });
}

function cancelled(signal: AbortSignal): ShoalError {
  const reason: unknown = signal.reason;
  if (reason instanceof ShoalError) return reason;
  return new ShoalError('QUERY_CANCELLED', 'the query was cancelled', { hint: 'the client went away or the request timed out' });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class TrinoClient {
  readonly url: string;
  private readonly headers: Record<string, string>;

  constructor(options: TrinoClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.headers = {
      'X-Trino-User': options.user ?? 'shoal',
      'X-Trino-Source': 'shoal',
      // every instance of a fleet computes and renders time the same way (as the DuckDB engine does)
      'X-Trino-Time-Zone': 'UTC',
      'X-Trino-Client-Capabilities': 'PARAMETRIC_DATETIME',
      ...(options.catalog === undefined ? {} : { 'X-Trino-Catalog': options.catalog }),
      ...(options.schema === undefined ? {} : { 'X-Trino-Schema': options.schema }),
    };
  }

  private async request(method: 'GET' | 'POST' | 'DELETE', url: string, body?: string, signal?: AbortSignal): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let res: globalThis.Response;
      try {
        res = await fetch(url, { method, headers: this.headers, ...(body === undefined ? {} : { body }), ...(signal ? { signal } : {}) });
      } catch (e) {
        if (signal?.aborted) throw cancelled(signal);
        throw unavailable(this.url, e);
      }
      if (RETRYABLE.has(res.status) && attempt < 50) {
        await res.body?.cancel();
        await sleep(100 + attempt * 50);
        continue;
      }
      const text = await res.text();
      if (method === 'DELETE') return {};
      if (!res.ok) throw unavailable(this.url, new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`));
      return parseLosslessJson(text) as Response;
    }
  }

  /**
   * Run one statement, yielding its rows page by page. Every page carries the columns.
   * An abort cancels the query on the coordinator (DELETE nextUri) before rejecting.
   */
  async *stream(sql: string, signal?: AbortSignal): AsyncGenerator<TrinoPage, void, undefined> {
    if (signal?.aborted) throw cancelled(signal);
    let r = await this.request('POST', `${this.url}/v1/statement`, sql, signal);
    const queryId = r.id ?? '';
    let columns: readonly TrinoColumn[] | undefined;
    let done = false;
    try {
      for (;;) {
        if (r.error) {
          done = true;
          throw new TrinoQueryError(r.error.errorName ?? 'UNKNOWN', r.error.errorType ?? 'UNKNOWN', r.error.message ?? '', queryId);
        }
        if (r.columns) columns = r.columns.map((c) => ({ name: c.name, type: c.type }));
        if (r.data && r.data.length > 0) yield { queryId, columns: columns ?? [], rows: r.data };
        if (r.nextUri === undefined) {
          done = true;
          if (columns !== undefined) yield { queryId, columns, rows: [] };
          return;
        }
        if (signal?.aborted) throw cancelled(signal);
        r = await this.request('GET', r.nextUri, undefined, signal);
      }
    } finally {
      // the consumer stopped early, was aborted, or failed: free the query's resources on the cluster
      if (!done && r.nextUri !== undefined) await this.request('DELETE', r.nextUri).catch(() => undefined);
    }
  }

  /** Run one statement to completion and collect its rows. */
  async query(sql: string, signal?: AbortSignal): Promise<TrinoPage> {
    const rows: (readonly LosslessJson[])[] = [];
    let columns: readonly TrinoColumn[] = [];
    let queryId = '';
    for await (const page of this.stream(sql, signal)) {
      columns = page.columns;
      queryId = page.queryId;
      rows.push(...page.rows);
    }
    return { queryId, columns, rows };
  }

  /** Rows as plain JSON values (numbers as `number`): for system tables and DDL results. */
  async rows(sql: string): Promise<unknown[][]> {
    return (await this.query(sql)).rows.map((r) => r.map(plainJson));
  }

  /** `GET /v1/info`: whether the coordinator is up and done starting. */
  async info(signal?: AbortSignal): Promise<{ readonly starting: boolean; readonly version: string }> {
    const r = (await this.request('GET', `${this.url}/v1/info`, undefined, signal)) as unknown as Record<string, LosslessJson>;
    const version = r['nodeVersion'] as Record<string, LosslessJson> | undefined;
    return { starting: r['starting'] === true, version: typeof version?.['version'] === 'string' ? version['version'] : '' };
  }

  /** The query's JSON info (`GET /v1/query/<id>`), plain. */
  async queryInfo(queryId: string): Promise<unknown> {
    return plainJson((await this.request('GET', `${this.url}/v1/query/${encodeURIComponent(queryId)}`)) as unknown as LosslessJson);
  }
}

export { JsonNumber };
