"""The SDK target: registry, command line, partial trees, the generator
path, and the host's `--bridge auto` seeing the SDK recipe's own output."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from codemods import recipes
from codemods.engine.editor import FileEditor
from codemods.engine.statements import Item, statement
from codemods.engine.outcome import AnchorMissing
from codemods.engine.parsing import TYPESCRIPT, parse
from codemods.engine.source import SourceFile
from codemods.recipes.base import CommitGroup, Context, ModeChoice, Step
from codemods.recipes.sdk import pinned
from codemods.recipes.sdk.common import renamed
from codemods.plan.runner import plan

from .node_tools import require, require_pinned_schemas
from .sdk_support import SDK_FIXTURES, SHAPES, hand_written, missing_pieces, sdk_tree  # noqa: F401  (fixture)
from .support import FIXTURES, invoke, snapshot


def test_sdk_commit_groups_cover_every_step_once_in_step_order() -> None:
    steps = [s.id for s in recipes.target_named("sdk").steps]
    grouped = [step for group in recipes.target_named("sdk").commits for step in group.steps]
    assert grouped == steps
    assert [g.id for g in recipes.target_named("sdk").commits] == ["spec", "types-and-schemas", "exports", "bridge-and-app", "docs"]
    # each group's subject and body are written for the plan (summary.commit_text)
    assert all(group.describe is not None for group in recipes.target_named("sdk").commits)


@pytest.mark.parametrize("toolchain", ["pinned", "none"])
def test_dry_run_shows_the_diff_and_check_goes_from_pending_to_done(
    toolchain: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if toolchain == "pinned":
        require_pinned_schemas()
    else:
        monkeypatch.setenv(pinned.ENV, str(tmp_path / "no-node-modules"))
    repo = sdk_tree(tmp_path, "shape-b")
    before = snapshot(repo)
    dry = invoke("apply", "--repo", repo, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert snapshot(repo) == before
    assert dry.stdout.count("diff --git") == 11
    assert "+export interface McpUiStateChangedNotification {" in dry.stdout
    assert "+  get onstatechange():" in dry.stdout
    assert "target: sdk" in dry.stderr
    # the text report says where the generated files came from
    if toolchain == "pinned":
        assert "regenerated with ts-to-zod 5.1.0, zod 4.3.6 and Prettier 3.6.2 (the versions mesh-codemod pins), run under Bun" in dry.stderr
        assert "the checkout has no node_modules, so `npm run generate:schemas` was not run" in dry.stderr
        assert "confirm with" not in dry.stderr
    else:
        assert "confirm with `npm run generate:schemas`" in dry.stderr
        assert "the pinned schema toolchain is not installed" in dry.stderr
    assert invoke("apply", "--repo", repo, "--check").exit_code == 1
    assert invoke("apply", "--repo", repo).exit_code == 0
    assert invoke("apply", "--repo", repo, "--check").exit_code == 0


def test_a_partly_applied_tree_is_completed_not_duplicated(tmp_path: Path) -> None:
    require_pinned_schemas()
    repo = sdk_tree(tmp_path, "shape-c")
    first = invoke("apply", "--repo", repo, "--only", "spec-types", "--only", "app-bridge")
    assert first.exit_code == 0, first.output
    rest = invoke("apply", "--repo", repo)
    assert rest.exit_code == 0, rest.output
    assert snapshot(repo) == snapshot(SDK_FIXTURES / "shape-c" / "expected-auto")


def test_crlf_files_keep_their_line_endings(tmp_path: Path) -> None:
    require_pinned_schemas()
    repo = sdk_tree(tmp_path, "shape-a")
    for path in repo.rglob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert invoke("apply", "--repo", repo).exit_code == 0
    expected = snapshot(SDK_FIXTURES / "shape-a" / "expected-auto")
    for name, data in snapshot(repo).items():
        assert data == expected[name].replace(b"\n", b"\r\n"), name


def test_a_schema_json_not_laid_out_by_the_generator_is_refused(tmp_path: Path, hand_written: None) -> None:
    # only where it is edited by hand: a generator rewrites it whole
    repo = sdk_tree(tmp_path, "shape-c")
    schema = repo / "src/generated/schema.json"
    schema.write_text(json.dumps(json.loads(schema.read_text()), indent=4))
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo)
    assert result.exit_code == 3
    assert "not laid out as the generator writes it" in result.stderr
    assert snapshot(repo) == before


def _register_toy(monkeypatch, step: Step) -> None:
    """A target "toy" of the one ``step``, for checkouts that hold its file."""
    toy = recipes.Target(
        name="toy",
        description=f"a toy checkout (with {step.path})",
        recognise=lambda repo: (repo / step.path).is_file(),
        steps=(step,),
        commits=(CommitGroup("toy", "toy", "toy", (step.id,)),),
        choose_mode=lambda repo, requested, names=None: ModeChoice(requested, "toy"),
    )
    monkeypatch.setitem(recipes.REGISTRY, "toy", lambda: toy)


def test_a_third_target_needs_only_a_registry_entry(tmp_path: Path, monkeypatch) -> None:
    """The runner plans a target it has never heard of, from its entry."""

    def transform(editor: FileEditor, ctx: Context) -> None:
        editor.ensure_statements_at_end(editor.source.root, [statement('export const toy = "yes";')])

    _register_toy(monkeypatch, Step("toy-step", "toy.ts", "toy", transform=transform))
    (tmp_path / "toy.ts").write_text("export const before = 1;\n")
    result = plan(tmp_path)
    assert result.target == "toy"
    assert result.changes[0].new == b'export const before = 1;\nexport const toy = "yes";\n'
    assert recipes.target_named("toy").commits[0].steps == ("toy-step",)
    missing = invoke("apply", "--repo", tmp_path / "nowhere-else")
    assert missing.exit_code == 3


def _declarations(source: bytes) -> str:
    """A declaration file for AppBridge's members, as `tsc --declaration`
    writes one: the event map (shapes B, C) and each accessor and method
    signature without its body."""
    root = parse(source, TYPESCRIPT).root_node
    lines = [
        source[n.start_byte:n.end_byte].decode()
        for n in root.named_children
        if n.type == "export_statement" and b"type AppBridgeEventMap" in source[n.start_byte:n.end_byte]
    ]
    lines.append("export declare class AppBridge {")
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.children))
        if node.type != "class_declaration" or source[node.child_by_field_name("name").start_byte:node.child_by_field_name("name").end_byte] != b"AppBridge":
            continue
        for member in node.child_by_field_name("body").named_children:
            if member.type == "method_definition":
                body = member.child_by_field_name("body")
                signature = source[member.start_byte:body.start_byte].decode()
                lines.append("    " + " ".join(signature.split()) + ";")
    return "\n".join(lines + ["}", ""])


@pytest.mark.parametrize(("sdk_tree_kind", "mode"), [("expected-auto", "sdk"), ("input", "compat")])
def test_bridge_auto_picks_sdk_when_the_installed_sdk_is_the_recipe_output(
    sdk_tree_kind: str, mode: str, tmp_path: Path
) -> None:
    """Declarations made from the SDK recipe's own output, installed into a
    host checkout, make `--bridge auto` choose sdk; those of the unedited
    SDK leave it at compat."""
    sdk_source = (SDK_FIXTURES / "shape-b" / sdk_tree_kind / "src/app-bridge.ts").read_bytes()
    host = tmp_path / "mesh"
    shutil.copytree(FIXTURES / "newest" / "input", host)
    package = host / "apps/mesh/node_modules/@modelcontextprotocol/ext-apps"
    (package / "dist/src").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "@modelcontextprotocol/ext-apps", "version": "1.5.0-fixture"}))
    (package / "dist/src/app-bridge.d.ts").write_text(_declarations(sdk_source))
    # its interfaces are declarations as they are
    spec = (SDK_FIXTURES / "shape-b" / sdk_tree_kind / "src/spec.types.ts").read_text()
    (package / "dist/src/spec.types.d.ts").write_text(spec)
    result = invoke("apply", "--repo", host, "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    bridge = json.loads(result.stdout)["bridge"]
    assert bridge["mode"] == mode
    assert "@modelcontextprotocol/ext-apps 1.5.0-fixture" in bridge["reason"]
    if mode == "sdk":
        wires = bridge["sdk_api"]["wires"]
        assert bridge["sdk_api"]["declared_in"].startswith("apps/mesh/node_modules/")
        name = wires.split(",")[0].removeprefix("bridge.")
        assert name.startswith(("addEventListener(", "on")), wires
        diff = json.loads(result.stdout)["diff"]
        assert f"bridge.{name.split('(')[0]}" in diff


_FAKE_GENERATOR = """
import { readFileSync, writeFileSync } from "node:fs";
const spec = readFileSync("src/spec.types.ts", "utf8");
const edited = spec.includes("interface McpUiStateChangedNotification");
writeFileSync("src/generated/schema.ts", `export const fromEditedSpec = ${edited};\\n`);
writeFileSync("src/generated/schema.test.ts", `export const checked = ${edited};\\n`);
writeFileSync("src/generated/schema.json", JSON.stringify({ edited }, null, 2) + "\\n");
"""


def test_with_node_modules_the_generator_runs_on_the_edited_spec(tmp_path: Path) -> None:
    """The checkout's own `npm run generate:schemas` runs (here a stand-in
    script) on a scratch copy holding the edited spec.types.ts; the
    checkout changes only when the run writes, and no confirmation is asked."""
    require(Path(shutil.which("npm") or "/nonexistent/npm"), "npm")
    repo = sdk_tree(tmp_path, "shape-c")
    manifest = json.loads((repo / "package.json").read_text())
    manifest["scripts"]["generate:schemas"] = "node scripts/generate-schemas.mjs"
    (repo / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    (repo / "scripts").mkdir()
    (repo / "scripts/generate-schemas.mjs").write_text(_FAKE_GENERATOR)
    (repo / "node_modules/.bin").mkdir(parents=True)
    before = snapshot(repo)

    dry = invoke("apply", "--repo", repo, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "+export const fromEditedSpec = true;" in dry.stdout
    assert "confirm with" not in dry.stderr
    assert "note: regenerated with `npm run generate:schemas`" in dry.stderr  # the text report says which
    assert snapshot(repo) == before

    report = invoke("apply", "--repo", repo, "--json")
    assert report.exit_code == 0, report.output
    data = json.loads(report.stdout)
    assert data["notices"] == ["regenerated with `npm run generate:schemas`"]
    notes = {s["step"]: s.get("notes", []) for s in data["steps"]}
    assert "regenerated with `npm run generate:schemas`" in notes["schema-json"]
    assert json.loads((repo / "src/generated/schema.json").read_text()) == {"edited": True}
    assert "interface McpUiStateChangedNotification" in (repo / "src/spec.types.ts").read_text()


def test_renamed_replaces_whole_words_only() -> None:
    renames = [("sizechange", "statechange"), ("onsizechange", "onstatechange")]
    assert renamed('get onsizechange() { return h("sizechange"); } // resizechange', renames) == (
        'get onstatechange() { return h("statechange"); } // resizechange'
    )


def _editor(text: str) -> FileEditor:
    return FileEditor(SourceFile.from_bytes("a.ts", text.encode()))


def test_list_items_after_an_entry_follow_the_list_layout() -> None:
    editor = _editor("import { a, b } from 'm';\nimport {\n  c,\n  d\n} from 'n';\n")
    first, second = [n for n in editor.walk() if n.type == "named_imports"]
    assert editor.ensure_list_items(first, [Item("a2", "a2")], after="a").changed
    assert editor.ensure_list_items(second, [Item("d2", "d2")], after="d").changed
    assert not editor.ensure_list_items(second, [Item("d", "d")], after="zz").changed  # present: no anchor needed
    with pytest.raises(AnchorMissing, match="`zz`"):
        editor.ensure_list_items(second, [Item("z2", "z2")], after="zz")
    assert editor.result().decode() == "import { a, a2, b } from 'm';\nimport {\n  c,\n  d,\n  d2\n} from 'n';\n"


def test_list_items_after_entries_merge_with_other_items_for_the_list() -> None:
    # Items after two entries and one at the end, planned by three calls:
    # the list grows past the line width once, and breaks with all of them.
    editor = _editor("export { alpha, beta, gamma } from './a-module-with-a-long-name-here';\n")
    clause = next(n for n in editor.walk() if n.type == "export_clause")
    editor.ensure_list_items(clause, [Item("alpha2", "alpha2")], after="alpha")
    editor.ensure_list_items(clause, [Item("delta", "delta")])
    editor.ensure_list_items(clause, [Item("beta2", "beta2"), Item("alpha2", "alpha2")], after="beta")
    assert editor.result().decode() == (
        "export {\n  alpha,\n  alpha2,\n  beta,\n  beta2,\n  gamma,\n  delta,\n} from './a-module-with-a-long-name-here';\n"
    )


def test_members_after_a_member_of_an_object_type() -> None:
    editor = _editor("type M = {\n  a: A;\n  b: B;\n};\ntype N = { a: A; b: B };\n")
    first, second = [n for n in editor.walk() if n.type == "object_type"]
    editor.ensure_members(first, [Item("a2", "a2: A2;")], after="a")
    editor.ensure_members(second, [Item("a2", "a2: A2")], after="a")
    assert editor.result().decode() == "type M = {\n  a: A;\n  a2: A2;\n  b: B;\n};\ntype N = { a: A; a2: A2; b: B };\n"


def test_ensure_union_member_inline_and_per_line() -> None:
    editor = _editor("type A = B | C;\ntype D =\n  | E // e\n  | F;\n")
    unions = [n for n in editor.walk() if n.type == "union_type" and n.parent.type != "union_type"]
    assert editor.ensure_union_member(unions[0], "B2", after="B").changed
    assert editor.ensure_union_member(unions[1], "E2", after="E").changed
    assert not editor.ensure_union_member(unions[1], "F", after="F").changed
    with pytest.raises(AnchorMissing, match="`G`"):
        editor.ensure_union_member(unions[1], "G2", after="G")
    assert editor.result().decode() == "type A = B | B2 | C;\ntype D =\n  | E // e\n  | E2\n  | F;\n"


@pytest.mark.parametrize("shape", SHAPES)
def test_each_shape_holds_every_piece_of_the_sdk_change(shape: str) -> None:
    assert missing_pieces(SDK_FIXTURES / shape / "input", SDK_FIXTURES / shape / "expected-auto") == []


def test_the_piece_check_notices_a_missing_event_map_key(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SDK_FIXTURES / "shape-b" / "expected-auto", tree)
    bridge = tree / "src/app-bridge.ts"
    bridge.write_text(bridge.read_text().replace('  statechange: McpUiStateChangedNotification["params"];\n', ""))
    assert missing_pieces(SDK_FIXTURES / "shape-b" / "input", tree) == [
        'src/app-bridge.ts: statechange: McpUiStateChangedNotification["params"];'
    ]


def test_a_name_imported_elsewhere_is_not_imported_again(tmp_path: Path) -> None:
    repo = sdk_tree(tmp_path, "shape-c")
    app = repo / "src/app.ts"
    app.write_text(app.read_text().replace(
        'import { EventDispatcher } from "./events.js";',
        'import { EventDispatcher } from "./events.js";\nimport type { McpUiStateChangedNotification } from "./types.js";',
    ))
    assert invoke("apply", "--repo", repo).exit_code == 0
    assert app.read_text().count("McpUiStateChangedNotification,") == 0
    assert app.read_text().count("import type { McpUiStateChangedNotification }") == 1


def test_generated_files_copy_the_spec_as_the_step_writes_it_under_the_checkout_config(tmp_path: Path) -> None:
    """The generated files derive from spec.types.ts as the spec-types step
    plans it, under the checkout's formatter settings: with a wider line the
    step wraps the new doc comment later, and schema.ts copies that doc."""
    repo = sdk_tree(tmp_path, "shape-b")
    (repo / "biome.json").write_text('{ "formatter": { "lineWidth": 120 } }\n')
    result = invoke("apply", "--repo", repo, "--only=spec-types", "--only=schema", "--formatter=none")
    assert result.exit_code == 0, result.output

    def doc_above(path: str, line: str) -> str:
        text = (repo / path).read_text()
        return text[text.rindex("/**", 0, text.index(line)):text.index(line)]

    spec_doc = doc_above("src/spec.types.ts", "export interface McpUiStateChangedNotification ")
    assert max(len(line) for line in spec_doc.splitlines()) > 80
    assert doc_above("src/generated/schema.ts", "export const McpUiStateChangedNotificationSchema ") == spec_doc


def test_a_generated_file_that_is_not_utf8_is_refused_as_not_utf8(tmp_path: Path) -> None:
    repo = sdk_tree(tmp_path, "shape-c")
    schema = repo / "src/generated/schema.ts"
    schema.write_bytes(schema.read_bytes().replace(b"\n", b"\n// caf\xe9\n", 1))
    result = invoke("apply", "--repo", repo, "--dry-run", "--json")
    assert result.exit_code == 3, result.output
    step = next(s for s in json.loads(result.stdout)["steps"] if s["step"] == "schema")
    assert (step["status"], step["kind"], step["path"]) == ("refused", "not-utf8", "src/generated/schema.ts")
    assert step["reason"].startswith("not UTF-8 (byte ")


def test_a_broken_spec_is_refused_in_the_same_words_by_every_step_that_reads_it(tmp_path: Path) -> None:
    repo = sdk_tree(tmp_path, "shape-c")
    spec = repo / "src/spec.types.ts"
    spec.write_text(spec.read_text().replace("export interface McpUiHostContext {", "export interface McpUiHostContext {{", 1))
    for only, steps in (([], {"spec-types", "schema", "schema-test", "schema-json"}), (["--only", "schema"], {"schema"})):
        result = invoke("apply", "--repo", repo, "--dry-run", "--json", *only)
        assert result.exit_code == 3, result.output
        refused = {
            s["step"]: (s["path"], s["kind"], s["reason"]) for s in json.loads(result.stdout)["steps"] if s["status"] == "refused"
        }
        assert refused.keys() >= steps
        assert len(set(refused.values())) == 1, refused
        path, kind, reason = refused["schema"]
        assert (path, kind) == ("src/spec.types.ts", "syntax-error")
        assert not reason.startswith("src/"), reason


def test_overlapping_edits_of_a_rewrite_step_are_a_conflict(tmp_path: Path, monkeypatch) -> None:
    """A rewrite step's overlapping or duplicate edits become a refusal,
    like a transform's, instead of an exception."""
    from codemods.engine.edits import EditSet

    def rewrite(path: str, data: bytes, ctx: Context) -> tuple[bytes, list[str]]:
        edits = EditSet()
        edits.replace(0, 4, "one")
        edits.replace(2, 6, "two")
        return edits.apply(data), []

    _register_toy(monkeypatch, Step("toy-rewrite", "toy.json", "toy", rewrite=rewrite))
    (tmp_path / "toy.json").write_text('{"toy": true}\n')
    result = plan(tmp_path)
    assert [(r.step, r.status.value, r.kind) for r in result.results] == [("toy-rewrite", "refused", "conflict")]
    assert "two edits would overlap" in result.results[0].reason
    assert result.changes == []


def test_the_generated_files_derive_from_a_spec_found_at_another_path(tmp_path: Path) -> None:
    """The runner finds a moved spec.types.ts by what it defines; the
    generated files derive from that file as the spec-types step plans it."""
    require_pinned_schemas()
    repo = sdk_tree(tmp_path, "shape-c")
    moved = "src/spec/spec.types.ts"
    (repo / "src/spec").mkdir()
    shutil.move(repo / "src/spec.types.ts", repo / moved)
    result = invoke("apply", "--repo", repo)
    assert result.exit_code == 0, result.output
    assert f"found {moved} (not at src/spec.types.ts)" in result.stderr
    expected = snapshot(SDK_FIXTURES / "shape-c" / "expected-auto")
    assert (repo / moved).read_bytes() == expected["src/spec.types.ts"]
    for path in ("src/generated/schema.ts", "src/generated/schema.test.ts", "src/generated/schema.json"):
        assert (repo / path).read_bytes() == expected[path], path


def test_doc_text_is_the_doc_comment_above_a_node_or_nothing() -> None:
    editor = _editor("/** Documented. */\nexport interface A {}\n// a line comment\ninterface B {}\n/** apart */\n\ninterface C {}\n")
    a, b, c = (editor.interface(name) for name in "ABC")
    assert editor.doc_text(a) == "/** Documented. */"
    assert editor.doc_text(b) == editor.doc_text(c) == ""


def test_the_sdk_target_is_laid_out_by_prettier_or_its_defaults(tmp_path: Path) -> None:
    """Without Prettier installed, the built-in layout of Prettier's
    defaults; with the checkout's node_modules/.bin/prettier, Prettier runs
    and agrees with it, so the output is the same bytes either way."""
    from .node_tools import BIN, NODE_MODULES

    require(BIN / "prettier", "Prettier")
    only = [f"--only={s}" for s in ("spec", "spec-types", "types", "app-bridge", "app", "bridge-test")]
    bare = sdk_tree(tmp_path / "bare", "shape-c")
    result = invoke("apply", "--repo", bare, *only)
    assert result.exit_code == 0, result.output
    assert "formatter: none (no node_modules/.bin/prettier in the checkout: the built-in layout, in Prettier's style)" in result.stderr
    assert "biome" not in result.stderr

    installed = sdk_tree(tmp_path / "installed", "shape-c")
    (installed / "node_modules").symlink_to(NODE_MODULES)
    result = invoke("apply", "--repo", installed, *only)
    assert result.exit_code == 0, result.output
    assert "formatter: prettier 3." in result.stderr
    assert "layout: formatter (prettier 3." in result.stderr and "agrees with the built-in layout" in result.stderr
    (installed / "node_modules").unlink()
    assert snapshot(installed) == snapshot(bare)


def test_the_expected_sdk_trees_are_prettier_clean() -> None:
    """Every TypeScript and JSON file of the expected trees is as the SDK's
    formatter (Prettier, default options) prints it."""
    import subprocess

    from .node_tools import BIN

    prettier = require(BIN / "prettier", "Prettier")
    files = sorted(
        str(p) for shape in SHAPES for p in (SDK_FIXTURES / shape / "expected-auto" / "src").rglob("*")
        if p.suffix in {".ts", ".json"}
    )
    assert len(files) > 20
    result = subprocess.run([str(prettier), "--check", *files], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _region(text: str, name: str) -> list[str]:
    body = text[text.index(f"//#region {name}\n") + len(f"//#region {name}\n"):text.index(f"//#endregion {name}")]
    lines = [line for line in body.splitlines() if line.strip()]
    indent = min(len(line) - len(line.lstrip()) for line in lines)
    return [line[indent:] for line in lines]


def _synced_example(text: str, source: str) -> list[str]:
    start = text.index(f'```ts source="{source}"')
    block = text[start:text.index("```", start + 5)].splitlines()[1:]
    return [re.sub(r"^\s*\* ?", "", line) for line in block if re.sub(r"^\s*\* ?", "", line).strip()]


@pytest.mark.parametrize(("shape", "regions"), [
    ("shape-b", {"app": "reportViewState", "app-bridge": "keepStateInUrl"}),
    ("shape-c", {"app": "reportViewState"}),  # 2.x: no accessor, and the statechange key's doc is two lines
])
def test_new_doc_examples_are_synced_from_companion_regions(shape: str, regions: dict) -> None:
    """Where the revision keeps its examples in `.examples.ts` files, each
    new example names a region there holding exactly its lines (so `npm run
    sync:snippets` changes nothing), and the examples keep the URL cap and
    the size rule."""
    tree = SDK_FIXTURES / shape / "expected-auto" / "src"
    for module in ("app", "app-bridge"):
        source = (tree / f"{module}.ts").read_text()
        companion_file = (tree / f"{module}.examples.ts").read_text()
        region = regions.get(module)
        if region is None:
            assert "onstatechange" not in companion_file and "#keepStateInUrl" not in source
            continue
        lines = _region(companion_file, region)
        assert _synced_example(source, f"./{module}.examples.ts#{region}") == lines
        joined = "\n".join(lines)
        # sizes in UTF-8 bytes of the JSON text, never UTF-16 units
        assert "new TextEncoder().encode(" in joined and "bytes <= " in joined and ".length <= " not in joined
        # one state reported at a time, never two back to back
        assert joined.count(".sendStateChanged(") <= 1
        if module == "app" and "getHostCapabilities" in joined:
            assert "bytes <= (keeps.maxLength ?? 1024)" in joined  # the advertised limit, 1024 without one


def test_the_migration_table_maps_widget_state_only_partly_and_says_why_under_it(tmp_path: Path) -> None:
    """Model-visible state is not this change's scope: the counterparts are
    partial, in short cells, and the paragraph under the table says how."""
    repo = sdk_tree(tmp_path, "shape-c-full")
    result = invoke("apply", "--repo", repo, "--only=docs-migrate")
    assert result.exit_code == 0, result.output
    text = (repo / "docs/migrate_from_openai_apps.md").read_text()
    rows = [[c.strip() for c in line.strip()[1:-1].split("|")] for line in text.splitlines() if line.startswith("|")]
    cells = {row[0]: row[1] for row in rows}
    assert cells["`widgetState`"] == "`app.getHostContext()?.appState` (partly)"
    assert cells["`setWidgetState()`"] == "`app.sendStateChanged()` (partly)"
    under = text[text.index("| `notifyIntrinsicHeight`"):].split("\n\n")[1]
    assert "Unlike `widgetState`, the model never sees it" in under


def test_the_new_tsdoc_leaves_the_rules_to_the_spec(tmp_path: Path) -> None:
    """The `statechange` key's doc is a summary and a @see (2.0.4 documents
    none of its keys); `sendStateChanged`'s says when to call it and what a
    host does, the guard and the example, not the spec's rules again."""
    repo = sdk_tree(tmp_path, "shape-c")
    result = invoke("apply", "--repo", repo, "--only=app-bridge", "--only=app")
    assert result.exit_code == 0, result.output

    def doc_above(text: str, member: str) -> str:
        at = text.index(member)
        return text[text.rindex("/**", 0, at):at]

    key = doc_above((repo / "src/app-bridge.ts").read_text(), "statechange: ")
    assert "@see" in key and "@example" not in key and "page URL" not in key
    sender = doc_above((repo / "src/app.ts").read_text(), "sendStateChanged(params")
    prose = sender[:sender.index("@param")]
    assert "`hostContext.appState`" in prose and "this checks the handshake" in prose
    for rule in ("secret", "personal data", "validate", "maxLength", ", say"):
        assert rule not in prose, rule
