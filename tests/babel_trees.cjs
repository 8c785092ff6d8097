// JavaScript's own reading of pairs of TypeScript texts, for the cross-check
// of the layout relation (SPEC 8, tests/test_equivalence_properties.py).
//
// Usage: bun babel_trees.cjs NODE_MODULES (the folder that holds
// @babel/parser). stdin: a JSON list of pairs {a, b, tsx}; stdout: a JSON
// list, one entry per pair: {same: true}, or {same: false, a, b, where}
// with both trees (or the parse error) and the path of the first
// difference.
//
// A tree is @babel/parser's (plugins typescript, and jsx for .tsx: a .ts
// file is not JSX to TypeScript either), with what is layout by
// definition set aside: positions (start, end, loc, range) and `extra`
// (raw spellings, and the mark of parentheses), the quotes of a key that
// is an identifier (`{ "a": 1 }` is `{ a: 1 }`), TSParenthesizedType (the
// type's parentheses, as Babel 8 drops them), an empty statement in a
// list of statements (`;[a, b] = c`, as Biome guards a line), a block
// comment's line indentation and trailing spaces, BigInt spellings (0x10n
// is 16n), and JSX children as JSX gives them to the element
// (@babel/types' buildChildren: the cleaned text; adjacent texts, a {" "}
// among them, joined). Comments are kept: their kind, text and the nodes
// they are attached to.
"use strict";

const path = require("path");
const { parse } = require(path.join(process.argv[2], "@babel/parser"));
const { react } = require(path.join(process.argv[2], "@babel/types"));

const DROPPED = new Set(["start", "end", "loc", "range", "extra"]);
const COMMENTS = ["leadingComments", "trailingComments", "innerComments"];
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function comment(c) {
  const lines = c.value.split(/\r\n|\n|\r/);
  const value = [lines[0].replace(/[ \t]+$/, ""), ...lines.slice(1).map((l) => l.replace(/^[ \t]+|[ \t]+$/g, ""))];
  return { type: c.type, value: value.join("\n") };
}

function jsxChildren(node) {
  const out = [];
  for (const child of react.buildChildren(node)) {
    const last = out[out.length - 1];
    const plain = (n) => n && n.type === "StringLiteral" && !COMMENTS.some((k) => n[k] && n[k].length);
    if (plain(child) && plain(last)) {
      out[out.length - 1] = { ...last, value: last.value + child.value };
    } else {
      out.push(child);
    }
  }
  return out;
}

function tree(node) {
  if (Array.isArray(node)) return node.filter((n) => !(n && n.type === "EmptyStatement")).map(tree);
  if (node === null || typeof node !== "object") return node;
  if (node.type === "TSParenthesizedType") return tree(node.typeAnnotation);
  const out = {};
  for (const key of Object.keys(node)) {
    let value = node[key];
    if (DROPPED.has(key) || (COMMENTS.includes(key) && !(value && value.length))) continue;
    if (COMMENTS.includes(key) || key === "comments") value = value.map(comment);
    else if (key === "key" && node.computed === false && value.type === "StringLiteral" && IDENTIFIER.test(value.value)) {
      value = { ...value, type: "Identifier", name: value.value, value: undefined };
    }
    else if (key === "children" && (node.type === "JSXElement" || node.type === "JSXFragment")) value = jsxChildren(node);
    else if (key === "value" && node.type === "BigIntLiteral") value = BigInt(value).toString();
    out[key] = tree(value);
  }
  return out;
}

function read(code, tsx) {
  try {
    const plugins = tsx ? ["typescript", "jsx"] : ["typescript"];
    return tree(parse(code, { sourceType: "module", plugins, errorRecovery: false }));
  } catch (error) {
    return { error: String(error.message) };
  }
}

function firstDifference(a, b, path) {
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") {
    return a === b ? null : path;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return path;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = firstDifference(a[key], b[key], `${path}.${key}`);
    if (found !== null) return found;
  }
  return null;
}

const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const originals = new Map(); // a pair's first text is often one of a few files
const out = input.map(({ a, b, tsx }) => {
  const key = `${tsx ? 1 : 0}${a}`;
  if (!originals.has(key)) originals.set(key, read(a, tsx));
  const ta = originals.get(key);
  const tb = read(b, tsx);
  const where = ta.error || tb.error ? "(a parse error)" : firstDifference(ta, tb, "");
  return where === null ? { same: true } : { same: false, a: ta, b: tb, where };
});
process.stdout.write(JSON.stringify(out));
