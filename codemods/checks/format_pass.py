"""The checkout's Biome, run: the one part of the formatter's work that
starts a process of the checkout (`sandbox`). `plan.runner.plan` calls it
through the `Tools` the command line hands down (`checks.tools`), only when
a Biome was chosen; the publishing side plans without tools. What its
output may change, layout only, is judged in `plan.formatting` (`judge`).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..plan.formatting import (
    BUILT_IN, PRETTIER_CONFIG_FILES, Biome, Candidate, FormatterChoice, Layout, formats, has_config, is_prettier, judge,
)

_TIMEOUT = 120
# Read by Biome from the project root or a file's folders; copied with the files.
_CONFIG_FILES = ("biome.json", "biome.jsonc", ".editorconfig", ".gitignore", ".ignore")
_BEFORE = "mesh-codemod-before--"


def format_pass(
    config_root: Path, files: list[Candidate], choice: FormatterChoice
) -> list[tuple[bytes, Layout]]:
    """For each file, the bytes to write and the layout they have."""
    if choice.biome is None:
        return [(f.new, Layout(BUILT_IN, f"no formatter: {choice.reason}")) for f in files]
    prettier = is_prettier(choice.biome)
    if not prettier and not has_config(config_root):  # e.g. the base commit of a series predates it
        return [(f.new, Layout(BUILT_IN, "no biome.json in the tree")) for f in files]
    eligible = [f for f in files if formats(f.path)]
    if not eligible:
        return [(f.new, Layout(BUILT_IN, "not a file the formatter handles")) for f in files]
    before = {f.path: f.old for f in eligible if f.old is not None}
    after = {f.path: f.new for f in eligible}
    formatted_before, formatted_after, failure = _format_both(choice.biome, config_root, before, after)
    name = choice.biome.name
    results = []
    for file in files:
        if file not in eligible:
            results.append((file.new, Layout(BUILT_IN, "not a file the formatter handles")))
        elif failure:
            results.append((file.new, Layout(BUILT_IN, f"{name} failed: {failure}")))
        elif file.old is not None and formatted_before.get(file.path) != file.old:
            results.append((file.new, Layout(BUILT_IN, f"{name} would change the file as it was before the edit")))
        else:
            results.append(judge(file, formatted_after[file.path], name))
    return results


def _scratch() -> str | None:
    """Where the temporary folder goes: a RAM-backed /dev/shm unless TMPDIR
    says otherwise (writing and removing the files on a disk under load cost
    more than Biome itself)."""
    if os.environ.get("TMPDIR") or not os.access("/dev/shm", os.W_OK):
        return None
    return "/dev/shm"


def _format_both(
    biome: Biome, config_root: Path, before: dict[str, bytes], after: dict[str, bytes]
) -> tuple[dict[str, bytes], dict[str, bytes], str]:
    """Both sets formatted by one Biome process; a non-empty third value
    says why that failed. A file's "before" goes beside its "after", under a
    prefixed name that keeps its extensions (``foo.test.ts`` ->
    ``mesh-codemod-before--foo.test.ts``), so the same configuration and the
    same overrides by folder or extension apply to both."""
    import shutil
    import subprocess
    import tempfile

    def beside(path: str) -> str:
        folder, _, name = path.rpartition("/")
        return f"{folder}/{_BEFORE}{name}" if folder else f"{_BEFORE}{name}"

    files = {**after, **{beside(path): data for path, data in before.items()}}
    folder = Path(tempfile.mkdtemp(prefix="mesh-codemod-format-", dir=_scratch()))
    try:
        prettier = is_prettier(biome)
        _write_tree(config_root, folder, files, PRETTIER_CONFIG_FILES if prettier else _CONFIG_FILES)
        from . import sandbox

        # the checkout's formatter: an allow-listed environment, its own process group
        command = (
            [str(biome.program), "--write", "--log-level", "warn", *files]
            if prettier
            else [str(biome.program), "format", "--write", "--no-errors-on-unmatched", *files]
        )
        process = sandbox.run(command, folder, timeout=_TIMEOUT, merge_stderr=True, text=False)
        if process.returncode != 0:
            return {}, {}, _first_lines(process.stdout)
        return (
            {path: (folder / beside(path)).read_bytes() for path in before},
            {path: (folder / path).read_bytes() for path in after},
            "",
        )
    except subprocess.TimeoutExpired:
        return {}, {}, f"no answer within {_TIMEOUT} s"
    except OSError as err:
        return {}, {}, str(err)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _write_tree(
    config_root: Path, folder: Path, files: dict[str, bytes], config_files: tuple[str, ...] = _CONFIG_FILES
) -> None:
    """The files to format in ``folder``, beside copies of the checkout's
    formatter configuration files of every folder on their way."""
    import shutil

    folders = {Path(".")}
    for path, data in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        folders.update(Path(path).parents)
    for relative in folders:
        for name in config_files:
            source = config_root / relative / name
            if source.is_file():
                shutil.copyfile(source, folder / relative / name)
    # With `vcs.useIgnoreFile`, Biome refuses a root without an ignore file.
    (folder / ".gitignore").touch()


def _first_lines(err: bytes, count: int = 3) -> str:
    lines = [line.strip() for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    return " / ".join(lines[:count]) or "exit status non-zero"
