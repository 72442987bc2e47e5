"""An import-linter contract: no module inside the product imports its root facade.

The facade (`sagas`) re-exports names for users. A module inside the product imports a name
from the package that owns it (`sagas.engine`, `sagas.foundations`), so the layers never meet
again at the top.
"""

from __future__ import annotations

import grimp
from importlinter import Contract, ContractCheck, fields, output


class RootFacadeContract(Contract):
    """No module of `packages` but the facade itself imports `facade`.

    Configuration options:
        - facade: the root package users import from.
        - packages: the root packages whose modules are checked, as importers.
    """

    facade = fields.StringField()
    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        facade: str = self.facade  # type: ignore[assignment]
        checked: list[str] = self.packages  # type: ignore[assignment]
        illegal: list[dict[str, object]] = []
        for importer in sorted(graph.modules):
            if importer == facade or importer.split(".")[0] not in checked:
                continue
            if facade not in graph.find_modules_directly_imported_by(importer):
                continue
            details = graph.get_import_details(importer=importer, imported=facade)
            lines = tuple(detail["line_number"] for detail in details)
            illegal.append({"importer": importer, "lines": lines})
        return ContractCheck(
            kept=not illegal, warnings=[], metadata={"facade": facade, "illegal": illegal}
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        facade = check.metadata["facade"]
        for link in check.metadata["illegal"]:
            lines = ", ".join(map(str, link["lines"]))
            output.print_error(
                f"{link['importer']} -> {facade} (l.{lines}): import from the package that "
                f"owns the name, not the root facade",
                bold=False,
            )
            output.new_line()
