"""The render sites, the search schema and the iframe renderer are found by
role wherever the team moved and renamed them (SPEC 5a, "Recognition by
role"; issue 30, item 2): a file renamed with its component, the search
schema moved into a module of its own under another name, the renderer
renamed with its component. `apply` writes the feature into the moved
files, exactly what it writes into the unmoved ones (modulo the renames);
a second run has nothing to do; two files playing one role are a
Conflict naming both, and nothing is written."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from codemods.recipes.host import reads

from .gitrepo import BOT, commit_all, fixture_repo, git
from .support import FIXTURES, invoke, snapshot
from .test_moved_files import GENERIC, PANEL, RENDERER, ROUTES, SRC, _imports_resolve, _nothing_to_do

MOVED_GENERIC = f"{SRC}/web/components/chat/message/parts/tool-call-part/tool-app-part.tsx"
MOVED_PANEL = f"{SRC}/web/routes/panel-app.tsx"
SEARCH = f"{SRC}/web/routes/search.ts"
MOVED_RENDERER = f"{SRC}/mcp-apps/app-frame.tsx"

# A file's text -> the team's refactor of it.
Refactor = Callable[[str], str]


def _words(*pairs: tuple[str, str]) -> Refactor:
    """Each whole word ``old`` renamed ``new``."""

    def apply(text: str) -> str:
        for old, new in pairs:
            assert re.search(rf"\b{re.escape(old)}\b", text), old
            text = re.sub(rf"\b{re.escape(old)}\b", new, text)
        return text

    return apply


# (a) generic.tsx renamed with its component (and its props' interface)
PART = _words(("GenericToolCallPart", "ToolAppPart"), ("GenericToolCallPartProps", "ToolAppPartProps"))
# (c) project-app-view.tsx renamed with its components
PANEL_VIEW = _words(("AppViewContent", "PanelAppContent"), ("AppRenderer", "PanelApp"))

_SCHEMA = re.compile(r"^const unifiedChatSearchSchema = z\.object\(\{\n.*?^\}\);\n", re.M | re.S)
_APP_STATE_IMPORT = 'import { APP_STATE_PARAM } from "@/mcp-apps/app-state";\n'


def _route_file(text: str) -> str:
    """(b) index.tsx without its search schema, which it imports from
    ./routes/search under another name."""
    text = _SCHEMA.sub("", text, count=1).replace("// Search params shared by every task view under /$org/$taskId.\n\n", "")
    text = text.replace(_APP_STATE_IMPORT, "")
    text = text.replace('import * as z from "zod";\n', 'import * as z from "zod";\nimport { chatSearch } from "./routes/search";\n')
    return text.replace("validateSearch: unifiedChatSearchSchema,", "validateSearch: chatSearch,")


def _search_module(index: str) -> str:
    """(b) the search schema in a module of its own, exported as
    ``chatSearch``, from the index.tsx it was in (with the import of the
    format's param when that has it)."""
    schema = _SCHEMA.search(index).group(0).replace("const unifiedChatSearchSchema", "export const chatSearch")
    imports = 'import * as z from "zod";\n' + (_APP_STATE_IMPORT if _APP_STATE_IMPORT in index else "")
    return imports + "\n// Search params shared by every task view under /$org/$taskId.\n" + schema


def _refactored(tree: dict[str, bytes]) -> dict[str, bytes]:
    """A tree (path -> bytes) as the team refactors it: (a), (b), (c)."""
    out = dict(tree)
    text = {path: out.pop(path).decode() for path in (GENERIC, PANEL)}
    out[MOVED_GENERIC] = PART(text[GENERIC]).encode()
    out[MOVED_PANEL] = PANEL_VIEW(text[PANEL]).encode()
    index = out[ROUTES].decode()
    out[ROUTES] = _route_file(index).encode()
    out[SEARCH] = _search_module(index).encode()
    return out


def _tree(root: Path, paths: dict[str, bytes]) -> None:
    for path in [p for p in snapshot(root) if not p.startswith(".git/")]:
        (root / path).unlink()
    for path, data in paths.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)


def _checkout(tmp_path: Path, refactor: Callable[[dict[str, bytes]], dict[str, bytes]], case: str = "newest") -> Path:
    repo = fixture_repo(tmp_path / "repo", case)
    files = {p: d for p, d in snapshot(repo).items() if not p.startswith(".git/")}
    _tree(repo, refactor(files))
    commit_all(repo, "refactor: the team's second year")
    return repo


def _files(root: Path) -> dict[str, bytes]:
    return {p: d for p, d in snapshot(root).items() if not p.startswith(".git/")}


def test_the_refactor_is_what_the_tests_say() -> None:
    """The refactored input holds none of the usual names or paths the
    steps look for: each step's file is found by role or not at all."""
    moved = _refactored(_files(FIXTURES / "newest" / "input"))
    assert GENERIC not in moved and PANEL not in moved
    text = b"".join(moved.values()).decode()
    for symbol in ("GenericToolCallPart", "AppViewContent", "function AppRenderer", "unifiedChatSearchSchema"):
        assert symbol not in text, symbol
    assert "validateSearch: chatSearch," in moved[ROUTES].decode()
    assert "export const chatSearch = z.object({" in moved[SEARCH].decode()


@pytest.mark.parametrize("bridge", ["compat", "sdk"])
@pytest.mark.parametrize("case", ["newest", "release-0.4.0-compat"])
def test_the_feature_goes_into_the_moved_files_and_matches_the_unmoved_output(
    tmp_path: Path, bridge: str, case: str
) -> None:
    """A fresh checkout, and one where 0.4.0 wrote the feature (upgraded in
    the moved files)."""
    repo = _checkout(tmp_path, _refactored, case)
    dry = invoke("apply", "--repo", repo, "--bridge", bridge, "--dry-run")
    assert dry.exit_code == 0, dry.output
    for moved, why in (
        (MOVED_GENERIC, "it renders the iframe renderer from a tool-call part"),
        (MOVED_PANEL, "it renders the iframe renderer for the app `main` addresses"),
        (SEARCH, "it declares the zod schema a route validates its search with"),
    ):
        assert f"found {moved} (not at " in dry.stderr and why in dry.stderr, dry.stderr
    result = invoke("apply", "--repo", repo, "--bridge", bridge)
    assert result.exit_code == 0, result.output
    expected = _refactored(_files(FIXTURES / case / f"expected-{bridge}"))
    got = _files(repo)
    assert sorted(got) == sorted(expected)
    for path in sorted(expected):
        assert got[path].decode() == expected[path].decode(), path
    # the route file is not touched: the schema is not in it
    assert got[ROUTES] == _refactored(_files(FIXTURES / case / "input"))[ROUTES]
    _imports_resolve(repo)
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", bridge)


def test_a_refactor_after_the_feature_merged_is_nothing_to_do(tmp_path: Path) -> None:
    """The second year: the feature merged, then the team renames and moves
    the files it is in; the job has nothing to do (not a red day)."""
    repo = fixture_repo(tmp_path / "repo")
    assert invoke("apply", "--repo", repo, "--bridge", "compat").exit_code == 0
    commit_all(repo, "feat: appState")
    _tree(repo, _refactored(_files(repo)))
    commit_all(repo, "refactor: the team's second year")
    _nothing_to_do(repo, "--bridge", "compat")
    status = invoke("status", "--repo", repo)
    assert status.exit_code == 0, status.output
    for step, path in (("tool-call-part", MOVED_GENERIC), ("panel-app-view", MOVED_PANEL), ("search-schema", SEARCH)):
        assert re.search(rf"^{step} +applied +{re.escape(path)}$", status.stdout, re.M), status.stdout


def _renderer_renamed(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The iframe renderer renamed with its component (AppFrame), every
    import of it fixed; the render sites keep their own names."""
    out = dict(tree)
    renderer = out.pop(RENDERER).decode()
    out[MOVED_RENDERER] = _words(("MCPAppRenderer", "AppFrame"), ("MCPAppRendererProps", "AppFrameProps"))(renderer).encode()
    generic = out[GENERIC].decode().replace(
        'import { MCPAppRenderer as MCPAppIframeRenderer } from "@/mcp-apps/mcp-app-renderer.tsx";',
        'import { AppFrame as MCPAppIframeRenderer } from "@/mcp-apps/app-frame.tsx";',
    )
    out[GENERIC] = generic.encode()
    panel = out[PANEL].decode().replace('"@/mcp-apps/mcp-app-renderer.tsx"', '"@/mcp-apps/app-frame.tsx"')
    out[PANEL] = _words(("MCPAppRenderer", "AppFrame"))(panel).encode()
    return out


def test_the_iframe_renderer_renamed_with_its_component_is_found_by_role(tmp_path: Path) -> None:
    repo = _checkout(tmp_path, _renderer_renamed)
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    assert f"found {MOVED_RENDERER} (not at {RENDERER}): it renders an app through the bridge hook" in result.stderr
    expected = _renderer_renamed(_files(FIXTURES / "newest" / "expected-compat"))
    got = _files(repo)
    assert sorted(got) == sorted(expected)
    for path in sorted(expected):
        assert got[path].decode() == expected[path].decode(), path
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", "compat")


def test_a_render_site_importing_the_renderer_relatively_under_another_name_is_found(tmp_path: Path) -> None:
    """The role is the renderer rendered, whatever the import's spelling:
    relative, without an extension, under another local name."""

    def refactor(tree: dict[str, bytes]) -> dict[str, bytes]:
        out = _refactored(tree)
        text = out[MOVED_GENERIC].decode().replace(
            'import { MCPAppRenderer as MCPAppIframeRenderer } from "@/mcp-apps/mcp-app-renderer.tsx";',
            'import { MCPAppRenderer as Frame } from "../../../../../../mcp-apps/mcp-app-renderer";',
        )
        out[MOVED_GENERIC] = text.replace("<MCPAppIframeRenderer", "<Frame").encode()
        return out

    repo = _checkout(tmp_path, refactor)
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    assert f"found {MOVED_GENERIC} (not at {GENERIC})" in result.stderr, result.stderr
    text = (repo / MOVED_GENERIC).read_text()
    assert "useAppStateParam(\n    hasMCPApp ? part.toolCallId : null,\n  );" in text, text
    frame = re.search(r"<Frame\b[^>]*>", text, re.S).group(0)
    assert "appState={appState}" in frame and "onAppStateChange={onAppStateChange}" in frame, frame
    _imports_resolve(repo)
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", "compat")


def test_the_schema_renamed_in_place_is_edited_under_its_new_name(tmp_path: Path) -> None:
    """index.tsx is where it was, its schema renamed: the schema by role."""
    rename = _words(("unifiedChatSearchSchema", "chatRouteSearch"))
    repo = _checkout(tmp_path, lambda tree: {**tree, ROUTES: rename(tree[ROUTES].decode()).encode()})
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    expected = (FIXTURES / "newest" / "expected-compat" / ROUTES).read_text()
    assert (repo / ROUTES).read_text() == rename(expected)
    commit_all(repo, "feat: appState")
    _nothing_to_do(repo, "--bridge", "compat")


# ------------------------------------------------ two files play one role


def _two_parts(tree: dict[str, bytes]) -> dict[str, bytes]:
    out = dict(tree)
    text = out.pop(GENERIC).decode()
    folder = GENERIC.rsplit("/", 1)[0]
    out[f"{folder}/tool-app-part.tsx"] = PART(text).encode()
    out[f"{folder}/app-part.tsx"] = _words(("GenericToolCallPart", "AppPart"), ("GenericToolCallPartProps", "AppPartProps"))(text).encode()
    return out


def _two_schemas(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The schema in its own module, and a second route whose own search
    schema (with the panel's key) is in another."""
    out = _refactored(tree)
    other = out[SEARCH].decode().replace("chatSearch", "settingsSearch")
    out[f"{SRC}/web/routes/settings-search.ts"] = other.encode()
    index = out[ROUTES].decode()
    index = index.replace(
        'import { chatSearch } from "./routes/search";\n',
        'import { chatSearch } from "./routes/search";\nimport { settingsSearch } from "./routes/settings-search";\n',
    )
    out[ROUTES] = index.replace(
        '  path: "/apps/$connectionId/$toolName",\n', '  path: "/apps/$connectionId/$toolName",\n  validateSearch: settingsSearch,\n'
    ).encode()
    return out


@pytest.mark.parametrize(
    "refactor, step, files",
    [
        (
            _two_parts,
            "tool-call-part",
            [f"{SRC}/web/components/chat/message/parts/tool-call-part/app-part.tsx", MOVED_GENERIC],
        ),
        (_two_schemas, "search-schema", [SEARCH, f"{SRC}/web/routes/settings-search.ts"]),
    ],
    ids=["render-site", "search-schema"],
)
def test_two_files_playing_one_role_are_a_conflict_naming_both(tmp_path: Path, refactor, step: str, files) -> None:
    repo = _checkout(tmp_path, refactor)
    before = snapshot(repo)
    result = invoke("apply", "--repo", repo, "--bridge", "compat")
    assert result.exit_code == 3, result.output
    line = next((ln for ln in result.stderr.splitlines() if "more than one file plays its part" in ln), "")
    assert line and all(path in line for path in files), result.stderr
    assert snapshot(repo) == before


# ------------------------------------------------ the exported subset of pr --artifact


def test_reads_include_the_files_found_by_role(tmp_path: Path) -> None:
    """`pr --artifact` exports only the files a plan reads: the moved
    render sites and the schema's module are among them (found by the
    roles' needles, as `git grep` finds them in the commit)."""
    repo = _checkout(tmp_path, _refactored)
    names = git(repo, "ls-files").split()

    def grep(needles):
        args = ["grep", "-l", "-F", *(part for n in needles for part in ("-e", n)), "HEAD", "--", "*.ts", "*.tsx"]
        out = git(repo, *args, check=False)
        return [line.split(":", 1)[1] for line in out.splitlines() if ":" in line]

    wanted = reads(names, grep)
    assert {MOVED_GENERIC, MOVED_PANEL, SEARCH, ROUTES, RENDERER} <= wanted, sorted(wanted)


def test_the_build_on_a_checkout_where_the_files_moved_writes_the_feature_into_them(tmp_path: Path) -> None:
    """The build on a git checkout where the files moved: the series (built
    from the exported subset) writes into the moved files, and applying it
    gives what `apply` gives."""
    repo = _checkout(tmp_path, _refactored)
    applied = _checkout(tmp_path / "applied", _refactored)
    assert invoke("apply", "--repo", applied, "--bridge", "compat").exit_code == 0
    out = tmp_path / "series"
    result = invoke("patch", "--repo", repo, "--out", out, "--author", BOT, "--bridge", "compat")
    assert result.exit_code == 0, result.output
    patches = sorted(str(p) for p in out.glob("*.patch"))
    touched = "".join(Path(p).read_text() for p in patches)
    for path in (MOVED_GENERIC, MOVED_PANEL, SEARCH):
        assert f"+++ b/{path}" in touched, path
    git(repo, "am", "-q", *patches, env={"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    assert _files(repo) == _files(applied)
    shutil.rmtree(out)
