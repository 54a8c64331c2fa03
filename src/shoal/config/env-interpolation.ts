/**
 * `${env:VAR}` and `${env:VAR:-default}` interpolation inside YAML string scalars. References may be
 * embedded (`postgresql://${env:PGHOST}:5432/db`). A missing variable with no default is an issue
 * naming the key path; a malformed reference (`${env:}`, `${ENV:X}`, an unclosed `${env:X`) too.
 */
export type Env = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const ANY_OPENING = /\$\{\s*env\s*:/gi;

export type Interpolation =
  | { readonly ok: true; readonly value: string; readonly interpolated: boolean }
  | { readonly ok: false; readonly problem: 'missing' | 'malformed'; readonly variable?: string; readonly detail: string };

export function interpolate(text: string, env: Env): Interpolation {
  const wellFormed = [...text.matchAll(REFERENCE)];
  const openings = [...text.matchAll(ANY_OPENING)];
  if (openings.length !== wellFormed.length || openings.some((m, i) => m.index !== wellFormed[i]?.index || !m[0].startsWith('${env:'))) {
    return {
      ok: false,
      problem: 'malformed',
      detail: `malformed environment reference in "${text}"`,
    };
  }
  if (wellFormed.length === 0) return { ok: true, value: text, interpolated: false };
  let out = '';
  let last = 0;
  for (const m of wellFormed) {
    const name = m[1]!;
    const fallback = m[2];
    const value = env[name] ?? fallback;
    if (value === undefined) {
      return { ok: false, problem: 'missing', variable: name, detail: `environment variable ${name} is not set` };
    }
    out += text.slice(last, m.index) + value;
    last = m.index + m[0].length;
  }
  return { ok: true, value: out + text.slice(last), interpolated: true };
}
