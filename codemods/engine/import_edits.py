"""Ensure operations on import statements: add a name to an import (merged
with what other operations planned for it), drop names nothing uses."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from tree_sitter import Node
from .outcome import AnchorMissing
from .editor_base import EditorBase, _PlannedImport
from .find import module_stem
from .statements import Ensured, Item


class ImportEdits(EditorBase):
    """Imports: ensured, merged and laid out once per module."""

    def ensure_import(
        self,
        module: str,
        names: Sequence[str],
        *,
        after: Node | None = None,
        same: Sequence[str] = (),
    ) -> Ensured:
        """``import { names } from "module"``: add missing names to an existing
        value import of the module, or add the statement after the import
        ``after`` (or the last import). Two calls for a module that is not
        imported yet give one import statement. ``same``: other specifiers of the same module (``../a``,
        ``@/x/a``): an import under any of them is the module's, unless an
        earlier form's removal takes it away."""
        existing = None
        stems = _stems(module, same)
        for node in self.imports():
            if node.id in self.retired:
                continue
            source = node.child_by_field_name("source")
            if source is None or module_stem(self.text(source)[1:-1]) not in stems:
                continue
            if node.children[1].type == "type":
                continue  # `import type { ... }` cannot carry values
            named = next((n for n in self.walk(node) if n.type == "named_imports"), None)
            if named is not None:
                existing = named
                break
        if existing is not None:
            return self.ensure_list_items(existing, [Item(n, n) for n in names])
        planned = self._imports.get(module_stem(module))
        if planned is not None:
            missing = [n for n in names if n not in planned.names]
            planned.names.extend(missing)
            return self._record("import", module, [f"import {{ {', '.join(missing)} }} from {module}"] if missing else [])
        anchor = after
        if anchor is None:
            imports = [n for n in self.imports() if n.id not in self.retired]
            if not imports:
                raise AnchorMissing(self.path, "an import statement to insert after")
            anchor = imports[-1]
        self._imports[module_stem(module)] = _PlannedImport(anchor, module, list(names))
        return self._record("import", module, [f"import {{ {', '.join(names)} }} from {module}"])

    def drop_unused_imports(
        self, module: str, names: Sequence[str], why: str, same: Sequence[str] = (), *, moved: bool = False
    ) -> list[str]:
        """Remove ``names`` from the value imports of ``module`` where
        nothing else in the file uses them once this editor's replacements
        are made (what only an earlier form used), and the whole import
        when it is left empty. Called after the replacements are planned.
        Returns the names that stay imported because something still uses
        them. ``moved``: the names are imported from another module now,
        used or not."""
        replaced = [(e.start, e.end) for e in self.edits if e.end > e.start]

        def used(name: str) -> bool:
            return not moved and any(
                self.text(node) == name
                and not any(start <= node.start_byte and node.end_byte <= end for start, end in replaced)
                for node in self._identifiers_outside_imports()
            )

        dropped: list[str] = []
        kept: list[str] = []
        stems = _stems(module, same)
        for node in self.imports():
            source = node.child_by_field_name("source")
            if source is None or module_stem(self.text(source)[1:-1]) not in stems or node.id in self.retired:
                continue
            named = next((n for n in self.walk(node) if n.type == "named_imports"), None)
            if named is None:
                continue
            specifiers = [s for s in named.named_children if s.type == "import_specifier"]
            gone = [s for s in specifiers if self.item_key(s) in names and not used(self.item_key(s))]
            kept += [self.item_key(s) for s in specifiers if self.item_key(s) in names and s not in gone]
            if not gone:
                continue
            dropped += [self.item_key(s) for s in gone]
            clause = named.parent
            default = any(c.type in {"identifier", "namespace_import"} for c in clause.named_children)
            planned = self._planned.pop(("list", named.start_byte, named.end_byte), None)
            if len(gone) == len(specifiers) and planned is not None:
                # the names an earlier operation planned for this import take their place
                names = ", ".join(self._inline(i.text) for i in planned.items)
                self.edits.replace(specifiers[0].start_byte, specifiers[-1].end_byte, names)
                continue
            if planned is not None:
                self._planned[("list", named.start_byte, named.end_byte)] = planned
            if len(gone) == len(specifiers) and not default:
                # the whole statement, with its line
                start = self.source.line_start(node.start_byte)
                newline = self.source.data.find(b"\n", node.end_byte)
                self.edits.replace(start, len(self.source.data) if newline < 0 else newline + 1, "")
                continue
            for spec in gone:
                index = specifiers.index(spec)
                if index + 1 < len(specifiers):
                    self.edits.replace(spec.start_byte, specifiers[index + 1].start_byte, "")
                else:
                    self.edits.replace(specifiers[index - 1].end_byte, spec.end_byte, "")
        if dropped:
            self.notes.append(f"removed the import of {', '.join(dropped)} from {module} ({why})")
        self._record("drop imports", module, [f"-{n}" for n in dropped])
        return kept

    def _identifiers_outside_imports(self) -> Iterator[Node]:
        stack = [c for c in self.source.root.named_children if c.type != "import_statement"]
        while stack:
            node = stack.pop()
            if node.type in {"identifier", "type_identifier", "shorthand_property_identifier"}:
                yield node
            stack.extend(node.children)

    def _lay_out_imports(self) -> None:
        for planned in self._imports.values():
            # Laid out like any snippet: quotes, semicolon and width per Style.
            statement = f"import {{ {', '.join(planned.names)} }} from \"{planned.module}\";"
            self._insert_after(planned.anchor, [statement], "")


def _stems(module: str, same: Sequence[str]) -> set[str]:
    return {module_stem(m) for m in (module, *same)}
