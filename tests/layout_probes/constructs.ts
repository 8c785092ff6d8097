// Constructs where a line break, a parenthesis or a token's kind could
// mean something else to JavaScript than to tree-sitter: the layout
// relation's cross-check against @babel/parser edits them at random.
"use strict";

import type { Slot } from "./slots";
import { decode, encode as encodeSlots } from "./slots";

export const ENCODED = /[+/=]/g;
export const PATTERN = "/[+/=]/g";
const big = 123456789012345678901234567890n;
const hex = 0x1fffffffffffffn;
const small = 0.10000000000000001249000902703301;
const parts = [1, 2.5, 1e3, 0b101, 0o17, 1_000, .5];

type Unwrapped<T> = T extends Promise<infer U> ? U : T;
type Lookup = Parameters<typeof decode>[0];
type Listeners = Array<(event: string) => void>[];
type Keys = keyof typeof parts;
type Maybe = (() => void) | undefined;
type Tuple = readonly [first: string, second?: number];
type Mapped<T> = { readonly [K in keyof T]?: T[K] };
type Template = `slot-${string}`;
type Handler = null | ((event: string) => void) | (new () => Slot);
type Imported = typeof import("./slots").decode;

declare const marker: unique symbol;
declare module "./slots" {
  interface Slot {
    extra?: string;
  }
}
declare global {
  interface Window {
    slots?: Slot[];
  }
}

namespace Probe {
  export const inner = 1;
}

enum Mode {
  Inline = "inline",
  Fullscreen = "fullscreen",
}

function isSlot(value: unknown): value is Slot {
  return typeof value === "object" && value !== null;
}

function assertSlot(value: unknown): asserts value is Slot {
  if (!isSlot(value)) throw new Error("not a slot");
}

export abstract class Store<T extends object = object> {
  static readonly kind = "store";
  protected abstract read(): T;
  private cache = new Map<string, T>();
  declare owner: string;
  #secret = 1;

  constructor(
    private readonly name: string,
    public override: boolean = false,
  ) {}

  get size(): number {
    return this.cache.size;
  }

  set size(value: number) {
    this.owner = String(value);
  }

  async *entries(): AsyncGenerator<[string, T]> {
    for (const entry of this.cache) yield entry;
  }

  compare(a: number, b: number, c: number): boolean {
    const chained = a <= (b < c);
    const equal = (a === b) == (b === c);
    const inside = a in this.cache && this instanceof Store;
    return chained && equal && !inside;
  }

  cast(value: unknown): T {
    const a = (value as { x: T }).x;
    const b = (value ?? a)!;
    const c = (value || a) satisfies unknown;
    const d = <T>(value ?? b);
    return a ?? b ?? c ?? d;
  }

  secret(): number {
    return this.#secret ** 2 + (-1) ** 2;
  }
}

export class Plain implements Pick<Slot, never> {}

const started = (async () => 1)();
const fallback = started ?? (() => 2);

export const run = async <T,>(value: T): Promise<T> => {
  const list = [value, , value];
  const maybe = list?.[0]?.toString?.();
  const replaced = String(maybe).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const joined = `${replaced}:${PATTERN}` + /* @__PURE__ */ encodeSlots([]);
  label: for (const item of list) {
    if (!item) continue label;
    else break label;
  }
  let counter = 0;
  counter++;
  --counter;
  const sequence = (counter, joined);
  const object = { "quoted-key": 1, plain: 2, "identifier": 3, 4: big, [hex.toString()]: small };
  void object;
  void sequence;
  return value;
};

export default (function probe() {
  return Store;
});
