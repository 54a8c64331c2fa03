import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { emit, ednEquals, ednGet, ednMap, kw, readEdn, readEdnBytes, EdnMap, type EdnValue } from '../../../src/tik/edn/index.js';
import { TikError } from '../../../src/tik/errors.js';
import {
  compileSchema,
  explain,
  isSchemaForm,
  schemaProblem,
  validate,
  validateFactMap,
  type Schema,
} from '../../../src/tik/kernel/schema.js';
import { arbEdn } from '../edn/arbitrary.js';

const schema = (text: string): Schema => {
  const s = compileSchema(readEdn(text));
  if (s.kind !== 'schema') throw new Error(`unsupported: ${s.reason}`);
  return s;
};
const errors = (s: string, v: string): string[] => validate(schema(s), readEdn(v));

describe('types', () => {
  test.each([
    [':boolean', 'true', 'nil', 'should be a boolean'],
    [':int', '-5', '"5"', 'should be an integer'],
    [':string', '""', ':a', 'should be a string'],
    [':keyword', ':a/b', '"a"', 'should be a keyword'],
    [':uuid', '#uuid "018f2f6e-7c1a-7000-8000-000000000000"', '"018f2f6e-7c1a-7000-8000-000000000000"', 'should be a uuid'],
    [':inst', '#inst "2026-01-01T00:00:00Z"', '"2026-01-01T00:00:00Z"', 'should be an inst'],
    [':nil', 'nil', 'false', 'should be nil'],
    [':some', 'false', 'nil', "shouldn't be nil"],
    [':symbol', 'a', ':a', 'should be a symbol'],
    [':qualified-keyword', ':a/b', ':b', 'should be a qualified keyword'],
    ['[:boolean]', 'false', '0', 'should be a boolean'],
    ['string?', '"x"', '1', 'should be a string'],
    ['pos-int?', '1', '0', 'should be a positive int'],
  ])('%s accepts %s and rejects %s', (s, ok, bad, message) => {
    expect(errors(s, ok)).toEqual([]);
    expect(errors(s, bad)).toEqual([message]);
  });

  test(':any accepts every value', () => {
    const s = schema(':any');
    fc.assert(
      fc.property(arbEdn, (v) => {
        expect(validate(s, v)).toEqual([]);
      }),
    );
  });
});

describe('bounded strings and integers (malli-humanised)', () => {
  test('[:string {:min n}] counts UTF-16 units', () => {
    expect(errors('[:string {:min 8}]', '"abc123def456"')).toEqual([]);
    expect(errors('[:string {:min 8}]', '"abc"')).toEqual(['should be at least 8 characters']);
    expect(errors('[:string {:min 1}]', '""')).toEqual(['should be at least 1 character']);
    expect(errors('[:string {:min 2}]', '"😀"')).toEqual([]);
    expect(errors('[:string {:min 8}]', '5')).toEqual(['should be a string']);
  });

  test('[:string {:max n}], ranges and exact lengths', () => {
    expect(errors('[:string {:max 3}]', '"abcd"')).toEqual(['should be at most 3 characters']);
    expect(errors('[:string {:min 2 :max 3}]', '"abcd"')).toEqual(['should be between 2 and 3 characters']);
    expect(errors('[:string {:min 2 :max 3}]', '"abc"')).toEqual([]);
    expect(errors('[:string {:min 2 :max 2}]', '"a"')).toEqual(['should be 2 characters']);
  });

  test('[:int {:min :max}]', () => {
    expect(errors('[:int {:min 1 :max 5}]', '0')).toEqual(['should be at least 1']);
    expect(errors('[:int {:min 1 :max 5}]', '6')).toEqual(['should be at most 5']);
    expect(errors('[:int {:min 1 :max 5}]', '3')).toEqual([]);
    expect(errors('[:int {:min 3 :max 3}]', '4')).toEqual(['should be 3']);
    expect(errors('[:int {:min 1}]', '"1"')).toEqual(['should be an integer']);
  });

  test('comparators and equality', () => {
    expect(errors('[:> 1]', '1')).toEqual(['should be larger than 1']);
    expect(errors('[:>= 1]', '0')).toEqual(['should be at least 1']);
    expect(errors('[:< 1]', '1')).toEqual(['should be smaller than 1']);
    expect(errors('[:<= 1]', '2')).toEqual(['should be at most 1']);
    expect(errors('[:= :a]', ':b')).toEqual(['should be :a']);
    expect(errors('[:= [1 2]]', '(1 2)')).toEqual([]);
    expect(errors('[:not= :a]', ':a')).toEqual(['should not be :a']);
  });
});

describe('enums and combinators', () => {
  test('[:enum …]', () => {
    expect(errors('[:enum :a :b]', ':c')).toEqual(['should be either :a or :b']);
    expect(errors('[:enum :low :normal :high :critical]', ':urgent')).toEqual([
      'should be either :low, :normal, :high or :critical',
    ]);
    expect(errors('[:enum :only]', ':x')).toEqual(['should be :only']);
    expect(errors('[:enum "a" 1]', '"a"')).toEqual([]);
    expect(errors('[:enum "a" 1]', '"1"')).toEqual(['should be either "a" or 1']);
    expect(errors('[:enum :a :b]', ':b')).toEqual([]);
    expect(errors('[:enum [1 2]]', '(1 2)')).toEqual([]);
    expect(errors('[:enum {:x 1} :a]', ':a')).toEqual([]);
  });

  test('[:maybe s]', () => {
    expect(errors('[:maybe :string]', 'nil')).toEqual([]);
    expect(errors('[:maybe :string]', '"x"')).toEqual([]);
    expect(errors('[:maybe :string]', '1')).toEqual(['should be a string']);
  });

  test('[:and …] reports the first failing child; [:or …] every child when none holds', () => {
    expect(errors('[:and :int [:int {:min 5}]]', '"x"')).toEqual(['should be an integer']);
    expect(errors('[:and :int [:int {:min 5}]]', '1')).toEqual(['should be at least 5']);
    expect(errors('[:and :int [:int {:min 5}]]', '7')).toEqual([]);
    expect(errors('[:or :int :string]', ':k')).toEqual(['should be an integer', 'should be a string']);
    expect(errors('[:or :int :string]', '"s"')).toEqual([]);
  });

  test('[:vector s] with paths and limits', () => {
    expect(errors('[:vector :int]', '[1 2 3]')).toEqual([]);
    expect(errors('[:vector :int]', '[1 "b" 3 :d]')).toEqual(['[1]: should be an integer', '[3]: should be an integer']);
    expect(errors('[:vector :int]', '(1 2)')).toEqual(['invalid type']);
    expect(errors('[:vector {:min 2} :int]', '[1]')).toEqual(['should have at least 2 elements']);
    expect(errors('[:vector {:max 1} :int]', '[1 2]')).toEqual(['should have at most 1 element']);
    expect(errors('[:sequential :int]', '(1 x)')).toEqual(['[1]: should be an integer']);
    expect(errors('[:set :keyword]', '#{:a "b"}')).toEqual(['["b"]: should be a keyword']);
    expect(errors('[:tuple :int :string]', '[1 "a"]')).toEqual([]);
    expect(errors('[:tuple :int :string]', '[1]')).toEqual(['invalid tuple size 1, expected 2']);
  });

  test('[:map …]: open by default, required and optional keys, closed maps, nested paths', () => {
    const s = '[:map [:name :string] [:age {:optional true} [:int {:min 0}]] [:tags [:vector :keyword]]]';
    expect(errors(s, '{:name "a" :tags [] :extra 1}')).toEqual([]);
    expect(errors(s, '{:tags [:a 1]}')).toEqual(['[:name]: missing required key', '[:tags 1]: should be a keyword']);
    expect(errors(s, '{:name "a" :tags [] :age -1}')).toEqual(['[:age]: should be at least 0']);
    expect(errors(s, '[]')).toEqual(['invalid type']);
    expect(errors('[:map {:closed true} [:a :int]]', '{:a 1 :b 2}')).toEqual(['[:b]: disallowed key']);
    expect(errors('[:map-of :keyword :int]', '{:a 1 "b" :c}')).toEqual(['["b"]: should be a keyword', '["b"]: should be an integer']);
    expect(errors(':map', '{:anything 1}')).toEqual([]);
  });

  test('explain gives structured paths', () => {
    const e = explain(schema('[:map [:a [:vector :int]]]'), readEdn('{:a [1 :x]}'));
    expect(e.map((x) => [emit(Object.freeze([...x.in])), x.message])).toEqual([['[:a 1]', 'should be an integer']]);
  });
});

describe('the [:malli schema] guard over the fact-map {[path] value}', () => {
  const s = schema('[:map [[:customer :ack] [:= true]] [[:severity] [:enum :high :critical]]]');

  test('validates an EDN fact-map', () => {
    const facts = ednMap([
      [Object.freeze([kw('customer'), kw('ack')]), true],
      [Object.freeze([kw('severity')]), kw('high')],
    ]);
    expect(validateFactMap(s, facts)).toEqual([]);
  });

  test('validates [path, value] pairs and names the failing path', () => {
    expect(validateFactMap(s, [[[kw('severity')], kw('low')]])).toEqual([
      '[[:customer :ack]]: missing required key',
      '[[:severity]]: should be either :high or :critical',
    ]);
  });
});

describe('unsupported and invalid forms', () => {
  test.each([':fn', '[:fn int?]', '[:multi {:dispatch :type}]', '[:maybe [:fn pos?]]', '[:map [:a [:multi {:dispatch :t}]]]', '[:re "x"]', ':double', 'pos?'])(
    '%s is :schema/unsupported',
    (f) => {
      const c = compileSchema(readEdn(f));
      expect(c.kind).toBe('unsupported');
      expect(c.kind === 'unsupported' && c.reason).toBeTruthy();
      expect(schemaProblem(readEdn(f))?.kind).toBe('unsupported');
      expect(isSchemaForm(readEdn(f))).toBe(true);
    },
  );

  test.each(['5', '"string"', ':no-such-type', '[]', '[1 2]', '[:enum]', '[:vector]', '[:maybe :int :int]', '[:string {:min "8"}]', '[:map [:a]]', '[:map [:a :int] [:a :string]]', '[:boolean :x]', '{:a 1}', '[:int 5]'])(
    '%s is not a schema',
    (f) => {
      expect(() => compileSchema(readEdn(f))).toThrow(TikError);
      try {
        compileSchema(readEdn(f));
      } catch (e) {
        expect((e as TikError).code).toBe('schema/invalid');
        expect((e as TikError).hint).toBeTruthy();
      }
      expect(schemaProblem(readEdn(f))?.kind).toBe('invalid');
      expect(isSchemaForm(readEdn(f))).toBe(false);
    },
  );
});

describe('every fact schema in the shipped definitions compiles', () => {
  const root = resolve(process.cwd(), '../shared/tik-conformance');
  const files = ['processes', 'examples'].flatMap((d) => readdirSync(join(root, d)).map((f) => join(root, d, f)));

  test('and validates a value of the right shape, rejecting a wrong one', () => {
    let count = 0;
    for (const f of files) {
      const def = readEdnBytes(readFileSync(f), f);
      const facts = ednGet(def, 'process/facts');
      if (!(facts instanceof EdnMap)) continue;
      for (const [, form] of facts.entries()) {
        const c = compileSchema(form as EdnValue);
        expect(c.kind).toBe('schema');
        count++;
        expect(validate(c as Schema, Object.freeze([]))).not.toEqual([]);
      }
    }
    expect(count).toBeGreaterThan(30);
  });
});

describe('schema laws', () => {
  const forms = [':boolean', ':int', ':string', ':keyword', ':uuid', ':inst', ':nil', '[:string {:min 2}]', '[:int {:min 0 :max 9}]', '[:enum :a "b" 1]', '[:vector :int]', '[:map [:a :int]]'].map(
    (t) => schema(t),
  );
  const arbSchema = fc.constantFrom(...forms);

  test('validation is total: it returns strings for every value and never throws', () => {
    fc.assert(
      fc.property(arbSchema, arbEdn, (s, v) => {
        const e = validate(s, v);
        expect(Array.isArray(e)).toBe(true);
        for (const m of e) expect(typeof m).toBe('string');
      }),
    );
  });

  test('[:maybe s] holds for nil and exactly where s holds otherwise', () => {
    fc.assert(
      fc.property(arbSchema, arbEdn, (s, v) => {
        const maybe = compileSchema(Object.freeze([kw('maybe'), s.form])) as Schema;
        expect(validate(maybe, null)).toEqual([]);
        if (v !== null) expect(validate(maybe, v)).toEqual(validate(s, v));
      }),
    );
  });

  test('[:and a b] holds iff both hold; [:or a b] iff either holds', () => {
    fc.assert(
      fc.property(arbSchema, arbSchema, arbEdn, (a, b, v) => {
        const and = compileSchema(Object.freeze([kw('and'), a.form, b.form])) as Schema;
        const or = compileSchema(Object.freeze([kw('or'), a.form, b.form])) as Schema;
        const okA = validate(a, v).length === 0;
        const okB = validate(b, v).length === 0;
        expect(validate(and, v).length === 0).toBe(okA && okB);
        expect(validate(or, v).length === 0).toBe(okA || okB);
      }),
    );
  });

  test('[:vector s] holds iff every element holds', () => {
    fc.assert(
      fc.property(arbSchema, fc.array(arbEdn, { maxLength: 4 }), (s, xs) => {
        const vec = compileSchema(Object.freeze([kw('vector'), s.form])) as Schema;
        expect(validate(vec, Object.freeze(xs)).length === 0).toBe(xs.every((x) => validate(s, x).length === 0));
      }),
    );
  });

  test('[:enum v…] holds exactly for values = to a member', () => {
    fc.assert(
      fc.property(fc.array(arbEdn, { minLength: 1, maxLength: 4 }), arbEdn, (vs, x) => {
        const e = compileSchema(Object.freeze([kw('enum'), ednMap([]), ...vs])) as Schema;
        expect(validate(e, x).length === 0).toBe(vs.some((v) => ednEquals(v, x)));
        for (const v of vs) expect(validate(e, v)).toEqual([]);
      }),
    );
  });

  test('compiling the form of a compiled schema gives the same verdicts (schemas are data)', () => {
    fc.assert(
      fc.property(arbSchema, arbEdn, (s, v) => {
        const again = compileSchema(readEdn(emit(s.form))) as Schema;
        expect(validate(again, v)).toEqual(validate(s, v));
      }),
    );
  });
});

describe('compileSchema on arbitrary forms', () => {
  const ops = ['and', 'or', 'maybe', 'vector', 'set', 'sequential', 'tuple', 'map', 'map-of', 'enum', 'string', 'int', 'boolean', '=', '>', 'fn', 'multi', 're', 'nope'].map((o) => kw(o));
  const arbForm: fc.Arbitrary<EdnValue> = fc.letrec<{ form: EdnValue }>((tie) => ({
    form: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom<EdnValue>(...ops),
      arbEdn,
      fc
        .tuple(fc.constantFrom(...ops), fc.option(fc.constantFrom(readEdn('{:min 1}'), readEdn('{:closed true}'), readEdn('{:min "x"}')), { nil: undefined }), fc.array(tie('form'), { maxLength: 3 }))
        .map(([op, props, kids]) => Object.freeze(props ? [op, props, ...kids] : [op, ...kids]) as EdnValue),
    ),
  })).form;

  test('returns a schema or an unsupported marker, or throws schema/invalid — nothing else', () => {
    fc.assert(
      fc.property(arbForm, arbEdn, (form, value) => {
        let compiled;
        try {
          compiled = compileSchema(form);
        } catch (e) {
          expect(e).toBeInstanceOf(TikError);
          expect((e as TikError).code).toBe('schema/invalid');
          expect(isSchemaForm(form)).toBe(false);
          return;
        }
        expect(isSchemaForm(form)).toBe(true);
        if (compiled.kind === 'schema') {
          for (const m of validate(compiled, value)) expect(typeof m).toBe('string');
        }
      }),
      { numRuns: 1000 },
    );
  });
});
