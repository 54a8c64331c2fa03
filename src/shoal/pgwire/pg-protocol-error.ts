/**
 * A client that broke the frontend/backend protocol (a bad length, a truncated field, a message
 * out of place). The connection answers a FATAL ErrorResponse with SQLSTATE 08P01 and closes:
 * after a framing error nothing that follows can be trusted to be a message boundary.
 */
export class PgProtocolError extends Error {
  readonly sqlstate: string;

  constructor(message: string, sqlstate = '08P01') {
    super(message);
    this.name = 'PgProtocolError';
    this.sqlstate = sqlstate;
  }
}
