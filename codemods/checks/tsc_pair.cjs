// Type-check a project as it is on disk (the patched tree) and, where that
// found errors, as it was at the base commit, in one process: the second
// program reuses every source file the change did not touch, and checks only
// the files the first found errors in, so the pair costs about one type
// check. Run by mesh-codemod's verify with the checkout's own TypeScript.
//
//   bun tsc_pair.cjs OVERLAY.json -- TSC_ARGS...
//
// OVERLAY.json: {"files": {"/abs/path": "base text" | null}}, the files the
// change touched as they were at the base (null: not there).
// TSC_ARGS: the arguments of the `tsc` the repository's script runs; a
// project (tsconfig) build with noEmit only.
//
// Output: the patched program's diagnostics exactly as `tsc` prints them
// (not pretty), then a line MARKER, then the base program's diagnostics the
// same way. Exit 0 with no patched diagnostics, 2 with some (as tsc), 64
// when this run is not one the pair can stand in for (the caller then runs
// the script itself).
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const MARKER = "@@mesh-codemod: base@@";
const UNSUPPORTED = 64;

function unsupported(why) {
  process.stderr.write(`tsc_pair: ${why}\n`);
  process.exit(UNSUPPORTED);
}

const [overlayFile, separator, ...tscArgs] = process.argv.slice(2);
if (!overlayFile || separator !== "--") unsupported("usage: tsc_pair.cjs OVERLAY.json -- TSC_ARGS...");

let ts;
try {
  ts = require(require.resolve("typescript", { paths: [process.cwd()] }));
} catch {
  unsupported("no typescript package reachable from the project");
}

const overlay = new Map(
  Object.entries(JSON.parse(fs.readFileSync(overlayFile, "utf8")).files).map(([file, text]) => [
    path.resolve(file),
    text,
  ]),
);

const command = ts.parseCommandLine(tscArgs);
if (command.errors.length) unsupported("tsc's arguments do not parse");
if (command.fileNames.length) unsupported("tsc is given files, not a project");
if (command.options.build || command.options.watch) unsupported("tsc --build and --watch are not plain checks");

const configFile = command.options.project
  ? ts.sys.directoryExists(command.options.project)
    ? path.join(command.options.project, "tsconfig.json")
    : command.options.project
  : ts.findConfigFile(process.cwd(), ts.sys.fileExists);
if (!configFile || overlay.has(path.resolve(configFile))) unsupported("no tsconfig, or the change touches it");

let fatal;
const config = ts.getParsedCommandLineOfConfigFile(configFile, command.options, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    fatal = diagnostic;
  },
});
if (!config) unsupported(`the tsconfig does not load: ${fatal && ts.flattenDiagnosticMessageText(fatal.messageText, "\n")}`);
const options = config.options;
if (!options.noEmit) unsupported("not a noEmit check");
if (config.projectReferences && config.projectReferences.length) unsupported("project references");
for (const [file, text] of overlay) {
  // a file the change removed would be a root of the base program only
  if (text !== null && !ts.sys.fileExists(file) && /\.[cm]?[jt]sx?$/.test(file)) unsupported(`${file} was removed`);
}

const formatHost = {
  getCanonicalFileName: (name) => (ts.sys.useCaseSensitiveFileNames ? name : name.toLowerCase()),
  getCurrentDirectory: () => ts.sys.getCurrentDirectory(),
  getNewLine: () => ts.sys.newLine,
};

// What `tsc` reports, in its order (emitFilesAndReportErrors): parse
// errors stop it before the option, global and semantic ones.
function diagnosticsOf(program, onlyFiles) {
  const all = [...program.getConfigFileParsingDiagnostics()];
  const configCount = all.length;
  all.push(...program.getSyntacticDiagnostics());
  if (all.length === configCount) {
    all.push(...program.getOptionsDiagnostics());
    all.push(...program.getGlobalDiagnostics());
    if (all.length === configCount) {
      const files = onlyFiles
        ? program.getSourceFiles().filter((file) => onlyFiles.has(path.resolve(file.fileName)))
        : [undefined];
      for (const file of files) all.push(...program.getSemanticDiagnostics(file));
      if (ts.getEmitDeclarations ? ts.getEmitDeclarations(options) : options.declaration || options.composite) {
        if (all.length === configCount) for (const file of files) all.push(...program.getDeclarationDiagnostics(file));
      }
    }
  }
  return ts.sortAndDeduplicateDiagnostics(all);
}

function print(diagnostics) {
  for (const diagnostic of diagnostics) process.stdout.write(ts.formatDiagnostic(diagnostic, formatHost));
}

// The patched tree, from disk; its source files are kept for the base.
const parsed = new Map();
const patchedHost = ts.createCompilerHost(options);
const readSource = patchedHost.getSourceFile;
patchedHost.getSourceFile = (fileName, ...rest) => {
  const file = readSource(fileName, ...rest);
  if (file) parsed.set(fileName, file);
  return file;
};
const patched = ts.createProgram({
  rootNames: config.fileNames,
  options,
  host: patchedHost,
  projectReferences: config.projectReferences,
  configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
});
const found = diagnosticsOf(patched);
print(found);

// The base: the touched files as they were, every other file as parsed
// above; checked only where the patched tree has errors.
process.stdout.write(`${MARKER}\n`);
if (found.length) {
  const baseHost = ts.createCompilerHost(options);
  const inOverlay = (fileName) => overlay.has(path.resolve(fileName));
  const atBase = (fileName) => overlay.get(path.resolve(fileName));
  baseHost.fileExists = (fileName) => (inOverlay(fileName) ? atBase(fileName) !== null : ts.sys.fileExists(fileName));
  baseHost.readFile = (fileName) => (inOverlay(fileName) ? (atBase(fileName) ?? undefined) : ts.sys.readFile(fileName));
  baseHost.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (inOverlay(fileName)) {
      const text = atBase(fileName);
      return text === null ? undefined : ts.createSourceFile(fileName, text, languageVersion, false);
    }
    return parsed.get(fileName) ?? readSource(fileName, languageVersion, onError, shouldCreate);
  };
  const rootNames = config.fileNames.filter((file) => !inOverlay(file) || atBase(file) !== null);
  const base = ts.createProgram({
    rootNames,
    options,
    host: baseHost,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
  });
  const errorFiles = new Set(found.filter((d) => d.file).map((d) => path.resolve(d.file.fileName)));
  print(diagnosticsOf(base, errorFiles));
}
process.exit(found.length ? 2 : 0);
