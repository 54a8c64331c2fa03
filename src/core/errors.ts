/**
 * The base of every error we raise on purpose. Each system has one subclass (TikError,
 * ShoalError) whose `code` is stable: tests, exit codes and HTTP status mapping rely on it.
 * A message says what was wrong and where; `hint` says what to do about it.
 */
export interface ErrorDetails {
  /** Where it happened: a file, a key path, an argument, a line and column. */
  readonly where?: string;
  readonly position?: { readonly line: number; readonly column: number };
  /** What the user can do about it. */
  readonly hint?: string;
  readonly cause?: unknown;
}

export class CodedError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly where: string | undefined;
  readonly position: { readonly line: number; readonly column: number } | undefined;
  readonly hint: string | undefined;

  constructor(code: Code, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.where = details.where;
    this.position = details.position;
    this.hint = details.hint;
  }

  /** One or two lines for a terminal: never a stack trace for bad input. */
  describe(): string {
    const at = [this.where, this.position ? `line ${this.position.line}, column ${this.position.column}` : undefined]
      .filter(Boolean)
      .join(', ');
    const head = `${this.code}: ${this.message}${at ? ` (${at})` : ''}`;
    return this.hint ? `${head}\n  hint: ${this.hint}` : head;
  }
}

export function isCodedError(e: unknown): e is CodedError {
  return e instanceof CodedError;
}
