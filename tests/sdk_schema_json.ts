// Prints the JSON Schema document that the SDK's generator writes for a
// generated schema module: every exported `...Schema`, sorted by export
// name, through zod's own toJSONSchema. Run by tests/test_sdk_generated.py
// with Bun and the zod of tools/node_modules.
import { z } from "zod/v4";

const [modulePath, header] = process.argv.slice(2);
const module = await import(modulePath);
const defs: Record<string, unknown> = {};
for (const name of Object.keys(module).sort()) {
  if (!name.endsWith("Schema")) continue;
  // as the SDK's generator does: `undefined` (in a union) becomes `{}`
  defs[name.slice(0, -"Schema".length)] = z.toJSONSchema(module[name], {
    unrepresentable: "any",
  });
}
console.log(JSON.stringify({ ...JSON.parse(header), $defs: defs }, null, 2));
