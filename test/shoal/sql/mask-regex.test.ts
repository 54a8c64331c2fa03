import { describe, expect, it } from 'vitest';
import { checkMaskReplacement, parseMaskPattern, renderMaskPattern } from '../../../src/shoal/sql/mask-regex.js';

const ok = (p: string) => {
  const r = parseMaskPattern(p);
  if (!r.ok) throw new Error(`${p}: ${r.reason}`);
  return r.regex;
};
const refused = (p: string) => {
  const r = parseMaskPattern(p);
  expect(r.ok, p).toBe(false);
  return r.ok ? '' : r.reason;
};

describe('the certified mask regex subset', () => {
  it('accepts whole-value patterns of literals, ., classes, greedy quantifiers and flat groups', () => {
    for (const p of ['^(.{2}).*(@.*)$', '^(.{3}).*$', '^[^@]+(@.*)$', '^([a-z0-9._\\-]+)@([a-z.]+)$', '^.$', '^é€😀 x{2,5}y{3,}z?$', '^\\.\\$\\^\\(\\)\\[\\]\\\\$']) ok(p);
    expect(ok('^(.{2}).*(@.*)$').groups).toBe(2);
  });

  it('refuses what the targets read differently, saying why', () => {
    expect(refused('^[^@]+')).toMatch(/whole value/);
    expect(refused('(.{2}).*$')).toMatch(/whole value/);
    expect(refused('^a\\$')).toMatch(/whole value/);
    expect(refused('^(a|b)$')).toMatch(/alternation/);
    expect(refused('^a*?$')).toMatch(/lazy/);
    expect(refused('^a++$')).toMatch(/lazy|possessive/);
    expect(refused('^\\d+$')).toMatch(/\\d is not certified/);
    expect(refused('^\\w\\b$')).toMatch(/not certified/);
    expect(refused('^(a)\\1$')).toMatch(/not certified/);
    expect(refused('^(?:a)$')).toMatch(/\(\? groups/);
    expect(refused('^(?i)a$')).toMatch(/\(\? groups/);
    expect(refused('^((a))$')).toMatch(/nested/);
    expect(refused('^(ab)+$')).toMatch(/quantified group/);
    expect(refused('^[[:alpha:]]$')).toMatch(/POSIX/);
    expect(refused('^[a-]$')).toMatch(/range/);
    expect(refused('^[z-a]$')).toMatch(/reversed/);
    expect(refused('^a{300}$')).toMatch(/outside/);
    expect(refused('^a\nb$')).toMatch(/control/);
    expect(refused('^a^b$')).toMatch(/only at the very start/);
    expect(refused('^$')).toMatch(/empty string/);
    expect(refused('^(a*)b?$')).toMatch(/empty string/);
  });

  it('renders anchors per target and . as any character, newline included', () => {
    const r = ok('^(.{2}).*(@.*)$');
    const any = '(?:[^\\n]|\\n)';
    expect(renderMaskPattern(r, 'postgres')).toBe(`\\A(${any}{2})${any}*(\\@${any}*)\\Z`);
    expect(renderMaskPattern(r, 'duckdb')).toBe(`\\A(${any}{2})${any}*(\\@${any}*)\\z`);
    expect(renderMaskPattern(r, 'mariadb')).toBe(`(?-imsxU)\\A(${any}{2})${any}*(\\@${any}*)\\z`);
  });

  it('a replacement may only reference existing groups, with no backslash or bare $', () => {
    const r = ok('^(.{2}).*(@.*)$');
    expect(checkMaskReplacement('$1***$2', r).ok).toBe(true);
    expect(checkMaskReplacement('***', r).ok).toBe(true);
    expect(checkMaskReplacement('$3', r).ok).toBe(false);
    expect(checkMaskReplacement('$0', r).ok).toBe(false);
    expect(checkMaskReplacement('\\1', r).ok).toBe(false);
    expect(checkMaskReplacement('US$', r).ok).toBe(false);
  });
});
