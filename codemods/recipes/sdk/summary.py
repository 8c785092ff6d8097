"""What an SDK plan changes, read from its results and its files, in the
words the commit messages and the PR bodies use: one reading of the diff,
so that every sentence about the code is true of it (the union touched or
not, which senders check the handshake, how src/generated/ was made).
Nothing here decides an edit; it only reads what the steps did."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from ...engine.editor import FileEditor
from ...engine.source import SourceFile
from ..names import NAMES
from . import app as app_step
from .common import SIZE_SENDER, Words, words

# How the schema steps say how they made the generated files.
REGENERATED = "regenerated with "
HAND_EDITED = "src/generated/ was edited in the generator's style"
GENERATED_STEPS = ("schema", "schema-test", "schema-json")


class Change(NamedTuple):
    """The SDK change of one plan."""

    w: Words
    changed: frozenset[str]  # the steps that change a file
    spec: list[str]  # what the SEP edit did, as its step noted it
    spec_reason: str  # why the draft is not changed ("" when it is)
    shape: str  # "A", "B", "C" ("" when app-bridge.ts is not changed)
    capability: bool  # spec.types.ts declares the capability
    method_constant: bool  # spec.types.ts gains the method constant
    union: str  # "extended", "deprecated" or "none"
    guarded: bool  # the sender checks the handshake
    senders: dict[str, bool]  # the revision's other notification senders: guarded?
    generated: str  # how src/generated/ was made ("" when not changed)
    tests: list[str]  # the titles of the test cases added
    docs: list[str]  # what the docs steps did


def read(plan) -> Change:
    """``plan`` is a `plan.model.Plan` of the SDK target."""
    w = words(getattr(plan, "names", None) or NAMES)
    results = {r.step: r for r in plan.results}
    changes = {step: change for change in plan.changes for step in change.steps}
    changed = frozenset(changes)

    def notes(step: str) -> list[str]:
        result = results.get(step)
        return [str(n) for n in result.notes] if result is not None else []

    def texts(step: str) -> tuple[str, str]:
        change = changes.get(step)
        if change is None:
            return "", ""
        return (change.old or b"").decode("utf-8", "replace"), change.new.decode("utf-8", "replace")

    spec_result = results.get("spec")
    spec_reason = ""
    if "spec" not in changed:
        spec_reason = spec_result.reason if spec_result is not None and spec_result.reason else (
            "the draft already describes the notification"
        )
    shape = next((n.split(":")[0].removeprefix("shape ") for n in notes("app-bridge") if n.startswith("shape ")), "")
    _, spec_types = texts("spec-types")
    old_types, new_types = texts("types")
    if any("deprecated app-to-host union" in n for n in notes("types")):
        union = "deprecated"
    elif re.search(rf"\|\s*{re.escape(w.state)}\b", new_types) and not re.search(rf"\|\s*{re.escape(w.state)}\b", old_types):
        union = "extended"
    else:
        union = "none"
    old_app, new_app = texts("app")
    generated = next((n for s in GENERATED_STEPS for n in notes(s) if n.startswith(REGENERATED)), "")
    generated = generated or next((n for s in GENERATED_STEPS for n in notes(s) if n.startswith(HAND_EDITED)), "")
    old_test, new_test = texts("bridge-test")
    titles = re.findall(r"""\bit\(\s*["']([^"']+)["']""", new_test)
    old_titles = set(re.findall(r"""\bit\(\s*["']([^"']+)["']""", old_test))
    return Change(
        w=w,
        changed=changed,
        spec=notes("spec") if "spec" in changed else [],
        spec_reason=spec_reason,
        shape=shape,
        capability=f"{w.capability}?: {{" in spec_types,
        method_constant=w.method_const in spec_types,
        union=union,
        guarded=f'{app_step.GUARD}("{w.sender}")' in new_app or f"{app_step.GUARD}('{w.sender}')" in new_app,
        senders=senders(old_app) if old_app else {},
        generated=generated,
        tests=[t for t in titles if t not in old_titles],
        docs=_docs(changed, {s: notes(s) for s in ("docs-patterns", "docs-migrate")}, texts("docs-patterns")[1]),
    )


def _docs(changed: frozenset[str], notes: dict[str, list[str]], patterns: str) -> list[str]:
    """What the docs steps did, as their rewrite notes say it."""
    from . import docs_pages

    found = []
    if "docs-patterns-examples" in changed:
        found.append(f"`{docs_pages.PATTERNS_TSX}` gains the `{docs_pages.REGION}` region")
    for note in notes["docs-patterns"] if "docs-patterns" in changed else []:
        synced = f'source="./patterns.tsx#{docs_pages.REGION}"' in patterns
        found.append(f"`{docs_pages.PATTERNS_PATH}`: {note}" + (", its snippet synced from that region" if synced else ""))
    found += [f"`{docs_pages.MIGRATE_PATH}`: {n}" for n in notes["docs-migrate"]] if "docs-migrate" in changed else []
    return found


def senders(source: str) -> dict[str, bool]:
    """The notification senders of the revision's `App` and whether each
    checks the handshake."""
    editor = FileEditor(SourceFile.from_bytes(app_step.PATH, source.encode()))
    return app_step.notification_senders(editor, editor.class_(app_step.CLASS))


def _names(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# ----------------------------------------------------------------------
# Sentences, each true of the diff
# ----------------------------------------------------------------------


def declared(c: Change) -> str:
    w = c.w
    parts = [
        f"`{w.state}` (`params: {{ state }}`, `state` a JSON value or `null` for the initial view, never missing:"
        " the schema rejects `params: {}`)",
        f"`{w.field}?: unknown` on `McpUiHostContext`",
    ]
    if c.capability:
        parts.append(f"the `{w.capability}` host capability with `maxLength`")
    if c.method_constant:
        parts.append(f"`{w.method_const}`")
    return f"`src/spec.types.ts` declares {_names(parts)}."


def union_sentence(c: Change) -> str:
    if c.union == "extended":
        return f"The app-to-host `AppNotification` union gains `{c.w.state}`."
    if c.union == "deprecated":
        return "The `AppNotification` union is deprecated in this revision and is left as it is."
    return ""


def wiring(c: Change) -> str:
    w = c.w
    if c.shape == "A":
        return f"`AppBridge.{w.accessor}`, a setter that registers the schema with `setNotificationHandler`, like `onsizechange`."
    if c.shape == "B":
        return (
            f"the `{w.event}` event (an `AppBridgeEventMap` key and its `eventSchemas` entry) and the"
            f" `AppBridge.{w.accessor}` get/set accessors over it, like `onsizechange`."
        )
    return (
        f"the `{w.event}` event (an `AppBridgeEventMap` key and its `eventSchemas` entry), for"
        f" `addEventListener(\"{w.event}\", ...)`; no `{w.accessor}` accessor, since this revision deprecates"
        " every event-backed `on*` accessor."
    )


def guard_sentence(c: Change) -> str:
    w = c.w
    if not c.guarded:
        return f"`App.{w.sender}(params)` sends it, like `{SIZE_SENDER}`."
    alike = [f"`{n}`" for n, on in c.senders.items() if on]
    unlike = [f"`{n}`" for n, on in c.senders.items() if not on]
    said = f"`App.{w.sender}(params)` sends it and checks the handshake first (`_assertInitialized`)"
    if alike:
        said += f", as {_names(alike)} does" if len(alike) == 1 else f", as {_names(alike)} do"
    if unlike:
        said += f"; {_names(unlike)} does not" if len(unlike) == 1 else f"; {_names(unlike)} do not"
    return said + "."


def generated_sentence(c: Change) -> str:
    """One line: how src/generated/ was made."""
    if not c.generated:
        return ""
    if c.generated.startswith(REGENERATED):
        return f"`src/generated/` was regenerated from the edited `src/spec.types.ts` with {c.generated.removeprefix(REGENERATED)}."
    return "`src/generated/`" + c.generated.removeprefix("src/generated/") + "."


# ----------------------------------------------------------------------
# Commit messages
# ----------------------------------------------------------------------


def _wrap(text: str) -> str:
    """A commit body's paragraphs wrapped at 72 columns; a list item's
    continuation lines indented under its text."""
    import textwrap

    def lines(line: str) -> str:
        indent = "  " if line.startswith("- ") else ""
        return "\n".join(textwrap.wrap(line, 72, subsequent_indent=indent, break_long_words=False,
                                       break_on_hyphens=False))

    out = []
    for paragraph in text.split("\n\n"):
        parts = paragraph.split("\n")
        out.append("\n".join(lines(p) for p in parts) if any(p.startswith("- ") for p in parts) else lines(paragraph))
    return "\n\n".join(out)


def _plain(text: str) -> str:
    """A sentence for a commit body: Markdown code spans as plain words."""
    return text.replace("`", "")


def _spec_commit(c: Change) -> tuple[str, str]:
    w = c.w
    done = [f"- {n[0].lower() + n[1:]}" for n in c.spec if not n.startswith("no ")]
    body = [
        f"The draft gains the {w.method} notification: a View reports its navigation state, and a Host"
        f" that advertises the {w.capability} capability may keep it and hand it back in"
        f" hostContext.{w.field}. The {w.field} field's doc in HostContext says which View is the same View.",
        "In the draft:\n" + "\n".join(_plain(d) for d in done) if done else "",
        "The dated versions of the text are unchanged. The SDK code that implements it comes in a change of"
        " its own.",
    ]
    return f"spec(draft): add {w.method}", _wrap("\n\n".join(p for p in body if p))


def _types_commit(c: Change) -> tuple[str, str]:
    body = [_plain(declared(c)), _plain(generated_sentence(c))]
    return f"feat: add {c.w.method}", _wrap("\n\n".join(p for p in body if p))


def _exports_commit(c: Change) -> tuple[str, str]:
    w = c.w
    names = [w.state, w.state_schema] + ([w.method_const] if c.method_constant else [])
    body = [f"types.ts re-exports {_names(names)}.", _plain(union_sentence(c))]
    return f"feat: export {w.state}", _wrap("\n\n".join(p for p in body if p))


def _bridge_commit(c: Change) -> tuple[str, str]:
    w = c.w
    subject = f"feat: add AppBridge.{w.accessor} and App.{w.sender}" if c.shape == "A" else (
        f"feat: add the {w.event} event and App.{w.sender}"
    )
    body = [
        _plain("AppBridge gets " + wiring(c)),
        _plain(guard_sentence(c)),
        "New tests:\n" + "\n".join(f"- {t}" for t in c.tests) if c.tests else "",
    ]
    return subject, _wrap("\n\n".join(p for p in body if p))


def _docs_commit(c: Change) -> tuple[str, str]:
    w = c.w
    body = "\n".join(f"- {_plain(n[0].lower() + n[1:])}" for n in c.docs)
    intro = (
        f"The persistence pattern and the migration guide say that a host with the {w.capability} capability"
        f" keeps a View's navigation state (App.{w.sender}, hostContext.{w.field}), which, unlike"
        " widgetState, is not model context."
    )
    return "docs: a host may keep a view's navigation state", _wrap(intro + ("\n\n" + body if body else ""))


_COMMITS: dict[str, Callable[[Change], tuple[str, str]]] = {
    "spec": _spec_commit,
    "types-and-schemas": _types_commit,
    "exports": _exports_commit,
    "bridge-and-app": _bridge_commit,
    "docs": _docs_commit,
}


def commit_text(group: str) -> Callable[[object], tuple[str, str]]:
    """The subject and body of commit group ``group`` for a plan."""
    return lambda plan: _COMMITS[group](read(plan))
