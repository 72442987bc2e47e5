"""An import-linter contract: a package's private (`_name`) modules are its own.

A module may import `a.b._c` only when it lives directly in package `a.b` (or inside `a.b._c`
itself). What another package needs is exported from `a.b`'s `__init__.py`.
"""

from __future__ import annotations

import importlib.util

import grimp
from importlinter import Contract, ContractCheck, fields, output


def _first_private_part(module: str) -> int | None:
    for index, part in enumerate(module.split(".")):
        if part.startswith("_") and not part.startswith("__"):
            return index
    return None


def private_owner(module: str) -> str | None:
    """The package that owns the first private part of `module`, or None if it has none."""
    index = _first_private_part(module)
    return None if index is None else ".".join(module.split(".")[:index])


def home_package(module: str) -> str:
    """The package a module belongs to: itself if it is a package, else its parent."""
    spec = importlib.util.find_spec(module)
    if spec is not None and spec.submodule_search_locations is not None:
        return module
    return module.rpartition(".")[0]


def may_import(importer: str, imported: str) -> bool:
    index = _first_private_part(imported)
    if index is None:
        return True
    parts = imported.split(".")
    private_module = ".".join(parts[: index + 1])
    inside_it = importer == private_module or importer.startswith(private_module + ".")
    return inside_it or home_package(importer) == ".".join(parts[:index])


class PrivateModulesContract(Contract):
    """No module imports another package's private module.

    Configuration options:
        - packages: the root packages whose modules are checked, as importers.
    """

    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        checked: list[str] = self.packages  # type: ignore[assignment]
        illegal: list[dict[str, object]] = []
        for importer in sorted(graph.modules):
            if importer.split(".")[0] not in checked:
                continue
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                if may_import(importer, imported):
                    continue
                details = graph.get_import_details(importer=importer, imported=imported)
                lines = tuple(detail["line_number"] for detail in details)
                illegal.append({"importer": importer, "imported": imported, "lines": lines})
        return ContractCheck(kept=not illegal, warnings=[], metadata={"illegal": illegal})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for link in check.metadata["illegal"]:
            lines = ", ".join(map(str, link["lines"]))
            output.print_error(
                f"{link['importer']} -> {link['imported']} (l.{lines}): private to its package",
                bold=False,
            )
            output.new_line()
