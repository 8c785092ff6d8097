// Bundles the browser harness with esbuild: the host page from a codemod
// output tree (its web/index.tsx is the entry, so the router, the search
// schema, the render sites, the renderer and the bridge hook are all the
// tool's own code) and the demo app. Mesh-internal modules the tree does not
// contain come from stubs/ (ours). Usage: node build.mjs <tree>/apps/mesh/src <outdir>
//
// The host's SDK (MESH_CODEMOD_BROWSER_SDK): "released" (default: the
// @modelcontextprotocol/ext-apps of tools/package-lock.json, 1.7.1), "2"
// (the pinned 2.x release, installed as ext-apps-2 with its 2.x peers), or
// the path of a test double of `@modelcontextprotocol/ext-apps/app-bridge`
// (which itself imports the released bridge). The demo app always runs on
// the released SDK: the two talk JSON-RPC over postMessage.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = path.resolve(HERE, "../../tools/node_modules");
// the tools come from tools/package-lock.json, not from a node_modules here
export const requireTool = createRequire(path.join(NODE_MODULES, "noop.js"));
const esbuild = requireTool("esbuild");
const STUBS = path.join(HERE, "stubs");
const STUB_SRC = path.join(STUBS, "src");
const EXTENSIONS = ["", ".ts", ".tsx", "/index.ts", "/index.tsx"];

function isFile(file) {
  return existsSync(file) && statSync(file).isFile();
}

const SDK = "@modelcontextprotocol/ext-apps";

// Where the host's imports of the SDK go (see the header).
function sdkModules(sdk) {
  return {
    name: "host-sdk",
    setup(build) {
      if (sdk === "released") return;
      build.onResolve({ filter: /^@modelcontextprotocol\/ext-apps(\/|$)/ }, (args) => {
        if (sdk === "2") {
          return { path: requireTool.resolve(args.path.replace(SDK, "ext-apps-2")) };
        }
        const double = path.resolve(sdk);
        if (args.path === `${SDK}/app-bridge` && args.importer !== double) {
          return { path: double };
        }
        return undefined;
      });
    },
  };
}

function meshModules(src) {
  // a module path inside mesh's src/: the tree's file, else our stub
  const resolveInSrc = (rel) => {
    for (const root of [src, STUB_SRC]) {
      for (const ext of EXTENSIONS) {
        const file = path.join(root, rel + ext);
        if (isFile(file)) return file;
      }
    }
    return null;
  };
  const fixed = {
    "#harness": path.join(HERE, "harness-data.ts"),
    "@decocms/mesh-sdk": path.join(STUBS, "mesh-sdk.ts"),
    "@deco/ui/lib/utils.ts": path.join(STUBS, "deco-ui-utils.ts"),
  };
  return {
    name: "mesh-modules",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (fixed[args.path]) return { path: fixed[args.path] };
        let rel = null;
        if (args.path.startsWith("@/")) {
          rel = args.path.slice(2);
        } else if (args.path.startsWith(".") && args.resolveDir) {
          const target = path.resolve(args.resolveDir, args.path);
          for (const root of [src, STUB_SRC]) {
            const r = path.relative(root, target);
            if (!r.startsWith("..") && !path.isAbsolute(r)) rel = r;
          }
        }
        if (rel === null) return undefined;
        const file = resolveInSrc(rel);
        if (!file) {
          return {
            errors: [{ text: `no file or stub for ${args.path} (${rel})` }],
          };
        }
        return { path: file };
      });
    },
  };
}

export async function build(src, out, sdk = "released") {
  const common = {
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    nodePaths: [NODE_MODULES],
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "error",
  };
  await esbuild.build({
    ...common,
    entryPoints: [path.join(src, "web", "index.tsx")],
    outfile: path.join(out, "host.js"),
    plugins: [sdkModules(sdk), meshModules(path.resolve(src))],
  });
  // The host bundle holds the SDK asked for: text only that SDK has.
  const host = readFileSync(path.join(out, "host.js"), "utf8");
  const marker = {
    released: "onsizechange",
    2: "setNotificationHandler: handler is required", // @modelcontextprotocol/client 2.x
  }[sdk] ?? "McpUiStateChangedNotificationSchema"; // the double's event schema
  if (!host.includes(marker)) {
    throw new Error(`the host bundle does not hold the ${sdk} SDK (no ${marker})`);
  }
  await esbuild.build({
    ...common,
    entryPoints: [path.join(HERE, "demo-app.ts")],
    outfile: path.join(out, "demo-app.js"),
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [src, out] = process.argv.slice(2);
  await build(src, out);
}
