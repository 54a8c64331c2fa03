import { describe, expect, it } from 'vitest';
import { csvField, resultCsv } from '../../../../src/shoal/server/console/result-csv.js';

describe("the console's CSV export", () => {
  it('quotes per RFC 4180: quotes, commas and line breaks; CRLF line ends; NULL is empty', () => {
    expect(resultCsv(['a', 'b,c'], [['x"y', 'p\nq'], [null, 3], [true, { k: 'v' }]])).toBe('a,"b,c"\r\n"x""y","p\nq"\r\n,3\r\ntrue,"{""k"":""v""}"\r\n');
  });

  it("prefixes ' to a text cell a spreadsheet would run as a formula (= + - @ tab CR)", () => {
    expect(csvField('=HYPERLINK("http://evil","x")')).toBe(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(csvField('+1+cmd|')).toBe("'+1+cmd|");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\t=1')).toBe(`"'\t=1"`);
    expect(csvField('\r=1')).toBe(`"'\r=1"`);
    expect(resultCsv(['=evil'], [])).toBe("'=evil\r\n");
  });

  it('quotes a field holding a semicolon or a tab: Excel in de/fr/nl locales splits on ; and would run the second part', () => {
    expect(csvField('x;=1+1')).toBe('"x;=1+1"');
    expect(csvField('ok;@SUM(1+9)')).toBe('"ok;@SUM(1+9)"');
    expect(csvField('a\tb')).toBe('"a\tb"');
    expect(resultCsv(['k;v'], [['p;"q"']])).toBe('"k;v"\r\n"p;""q"""\r\n');
  });

  it('leaves numbers alone: negative numbers, and decimals that travel as text', () => {
    expect(csvField(-5)).toBe('-5');
    expect(csvField('-12.50')).toBe('-12.50');
    expect(csvField('+3')).toBe('+3');
    expect(csvField('-1e5')).toBe('-1e5');
    expect(csvField('a=b')).toBe('a=b');
  });
});
