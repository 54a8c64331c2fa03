import { LongText, TextKeys, type TextKey } from './text-keys.js';

/**
 * A `Map` keyed by text that stays linear when keys are long texts of one length (./text-keys.ts:
 * V8 files strings over 16,383 units by length alone). A drop-in for `Map<string, V>` where keys
 * come from input — the kernel's fold keys facts by path text and attestations by claim text.
 * Iteration gives the original texts, in insertion order.
 */
export class TextMap<V> implements Map<string, V> {
  private keyOf = new TextKeys();
  private readonly inner = new Map<TextKey, V>();

  get size(): number {
    return this.inner.size;
  }

  get(text: string): V | undefined {
    const k = this.keyOf.find(text);
    return k === undefined ? undefined : this.inner.get(k);
  }

  has(text: string): boolean {
    const k = this.keyOf.find(text);
    return k !== undefined && this.inner.has(k);
  }

  set(text: string, value: V): this {
    this.inner.set(this.keyOf.key(text), value);
    return this;
  }

  delete(text: string): boolean {
    const k = this.keyOf.find(text);
    if (k === undefined || !this.inner.delete(k)) return false;
    if (k instanceof LongText) this.keyOf.drop(k);
    return true;
  }

  clear(): void {
    this.inner.clear();
    this.keyOf = new TextKeys();
  }

  get [Symbol.toStringTag](): string {
    return 'TextMap';
  }

  *keys(): IterableIterator<string> {
    for (const k of this.inner.keys()) yield typeof k === 'string' ? k : k.text;
  }

  values(): IterableIterator<V> {
    return this.inner.values();
  }

  *entries(): IterableIterator<[string, V]> {
    for (const [k, v] of this.inner) yield [typeof k === 'string' ? k : k.text, v];
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }

  forEach(f: (value: V, key: string, map: Map<string, V>) => void): void {
    for (const [k, v] of this.entries()) f(v, k, this);
  }
}
