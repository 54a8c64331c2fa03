/**
 * Recognising a PostgreSQL store URL, apart from the store itself so that commands which only
 * need to tell a URL from a directory do not load the pg driver (CLI start-up).
 */

/** True for a `postgresql://` or `postgres://` URL (a driver suffix such as `+pg` allowed). */
export function isPostgresUrl(s: string): boolean {
  return /^postgres(ql)?(\+[A-Za-z0-9_]+)?:\/\//i.test(s);
}
