import { describe, expect, it } from 'vitest';
import { isCodedError } from '../../../src/core/errors.js';
import { parseEffectsConfig } from '../../../src/tik/effects/index.js';

function failure(text: string): { code: string; message: string; where: string | undefined; hint: string | undefined } {
  try {
    parseEffectsConfig(text, 'effects.edn');
  } catch (e) {
    if (!isCodedError(e)) throw e;
    return { code: e.code, message: e.message, where: e.where, hint: e.hint };
  }
  throw new Error(`parsed: ${text}`);
}

describe('effects.edn', () => {
  it('reads rules with defaults: type :webhook, pipeline default, any process', () => {
    const c = parseEffectsConfig(
      `;; hooks
       {:effects [{:stage :resolved :url "https://hooks.example/a"}
                  {:stage :triaged :url "http://127.0.0.1:9/b" :type :webhook :process :support-request :pipeline :billing}]}`,
      'effects.edn',
    );
    expect(c.rules).toEqual([
      { pipeline: 'default', stage: ':resolved', process: undefined, type: 'webhook', url: 'https://hooks.example/a' },
      { pipeline: 'billing', stage: ':triaged', process: 'support-request', type: 'webhook', url: 'http://127.0.0.1:9/b' },
    ]);
    expect(c.pipelines).toEqual(['billing', 'default']);
    expect(Object.isFrozen(c.rules[0])).toBe(true);
  });

  it('an empty rule vector is valid and has no pipelines', () => {
    expect(parseEffectsConfig('{:effects []}').pipelines).toEqual([]);
  });

  it.each([
    ['[]', 'effects.edn', /one map with an :effects vector/],
    ['{:hooks []}', 'effects.edn :hooks', /unknown key/],
    ['{:effects {:stage :x}}', 'effects.edn :effects', /vector of rule maps/],
    ['{:effects [:resolved]}', 'effects.edn :effects 0', /must be a map/],
    ['{:effects [{:url "https://h.example/"}]}', 'effects.edn :effects 0 :stage', /is required/],
    ['{:effects [{:stage "resolved" :url "https://h.example/"}]}', 'effects.edn :effects 0 :stage', /must be a keyword/],
    ['{:effects [{:stage :a :url "https://h.example/"} {:stage :resolved}]}', 'effects.edn :effects 1 :url', /is required/],
    ['{:effects [{:stage :resolved :url "ftp://h.example/"}]}', 'effects.edn :effects 0 :url', /http\(s\) URL/],
    ['{:effects [{:stage :resolved :url "not a url"}]}', 'effects.edn :effects 0 :url', /http\(s\) URL/],
    ['{:effects [{:stage :resolved :url :nope}]}', 'effects.edn :effects 0 :url', /http\(s\) URL/],
    ['{:effects [{:stage :resolved :uri "https://h.example/"}]}', 'effects.edn :effects 0 :uri', /unknown key/],
    ['{:effects [{:stage :resolved :url "https://h.example/" :type :email}]}', 'effects.edn :effects 0 :type', /:email is not delivered by tik serve/],
    ['{:effects [{:stage :resolved :url "https://h.example/" :type :carrier-pigeon}]}', 'effects.edn :effects 0 :type', /unknown effect type/],
    ['{:effects [{:stage :resolved :url "https://h.example/" :pipeline "billing"}]}', 'effects.edn :effects 0 :pipeline', /must be a keyword/],
  ])('%s is refused at %s', (text, where, message) => {
    const f = failure(text);
    expect(f.code).toBe('effects/invalid');
    expect(f.where).toBe(where);
    expect(f.message).toMatch(message);
    expect(f.message.startsWith(where)).toBe(true);
    expect(f.hint).toBeTruthy();
  });

  it('text that is not EDN is an edn/malformed error naming the file and position', () => {
    const f = failure('{:effects [');
    expect(f.code).toBe('edn/malformed');
    expect(f.where).toBe('effects.edn');
  });
});
