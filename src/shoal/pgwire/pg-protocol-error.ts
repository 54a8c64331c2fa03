/**
 * An error of the wire protocol itself, with the SQLSTATE PostgreSQL would send: a client that
 * broke the protocol (08P01: a bad length, a truncated field), named a statement or portal that
 * does not exist (26000, 34000), or sent a parameter its type does not allow (22P02). `fatal`
 * ones (a framing error or an unknown message type: nothing after them can be trusted to be a
 * message boundary) end the connection; the others are answered with an ErrorResponse.
 */
export class PgProtocolError extends Error {
  readonly sqlstate: string;
  readonly fatal: boolean;

  constructor(message: string, sqlstate = '08P01', fatal = false) {
    super(message);
    this.name = 'PgProtocolError';
    this.sqlstate = sqlstate;
    this.fatal = fatal;
  }
}
