// The pinned schema toolchain's driver (mesh-codemod's own code), run with
// the Bun of tools/node_modules when an SDK checkout has no node_modules of
// its own. It calls ts-to-zod with the options the SDK's generator passes
// (comments kept, JSDoc parsed, `<Type>Schema` names) and zod's
// toJSONSchema the way the SDK's generator converts each exported schema.
// The checkout's post-processing (header, zod import, SDK schema imports,
// passthrough objects) is redone by codemods/recipes/sdk/generated.py, then
// Prettier lays the files out.
//
//   bun schema_generator.mjs generate NODE_MODULES SPEC_TYPES_TS
//     -> {"errors": [...], "schema": "...", "test": "..." | null}
//   bun schema_generator.mjs json NODE_MODULES SCHEMA_TS TEMPLATE_JSON OUT_JSON
//     writes OUT_JSON: TEMPLATE_JSON's top-level members (the checkout's
//     $schema, $id, title...) with `$defs` made of each export named
//     `<Type>Schema`; prints {"problems": [...]} (schemas left out)
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [command, nodeModules, file, template, out] = process.argv.slice(2);
const requireFromTools = createRequire(join(nodeModules, "package.json"));

async function load(name) {
  return import(pathToFileURL(requireFromTools.resolve(name)).href);
}

if (command === "generate") {
  const { generate } = await load("ts-to-zod");
  const result = generate({
    sourceText: readFileSync(file, "utf-8"),
    keepComments: true,
    skipParseJSDoc: false,
    getSchemaName: (typeName) => `${typeName}Schema`,
  });
  const errors = result.errors.map(String);
  process.stdout.write(
    JSON.stringify({
      errors,
      schema: errors.length ? null : result.getZodSchemasFile("../spec.types.js"),
      test: errors.length ? null : result.getIntegrationTestFile("../spec.types.js", "./schema.js") || null,
    }),
  );
} else if (command === "json") {
  const { toJSONSchema } = await load("zod/v4/core");
  const schemas = await import(pathToFileURL(file).href);
  const defs = {};
  const problems = [];
  for (const [name, schema] of Object.entries(schemas)) {
    if (!name.endsWith("Schema") || typeof schema !== "object" || schema === null) continue;
    try {
      defs[name.replace(/Schema$/, "")] = toJSONSchema(schema, { unrepresentable: "any" });
    } catch (error) {
      problems.push(`${name}: ${error}`);
    }
  }
  const document = JSON.parse(readFileSync(template, "utf-8"));
  document.$defs = defs;
  writeFileSync(out, JSON.stringify(document, null, 2) + "\n", "utf-8");
  process.stdout.write(JSON.stringify({ problems }));
} else {
  process.stderr.write(`unknown command ${command}\n`);
  process.exit(2);
}
