"""An import-linter contract: no two modules import each other, directly or in a loop."""

from __future__ import annotations

import grimp
from importlinter import Contract, ContractCheck, fields, output

from tooling.lint.import_graph import cycles


class NoCyclesContract(Contract):
    """No import cycle among the modules of `packages`.

    import-linter's graph counts every import: under `if TYPE_CHECKING:` and inside functions.

    Configuration options:
        - packages: the root packages whose modules are checked.
    """

    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        checked: list[str] = self.packages  # type: ignore[assignment]
        modules = [module for module in graph.modules if module.split(".")[0] in checked]
        edges = {module: graph.find_modules_directly_imported_by(module) for module in modules}
        found = cycles(edges)
        return ContractCheck(kept=not found, warnings=[], metadata={"cycles": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for loop in check.metadata["cycles"]:
            output.print_error(f"{' -> '.join(loop)}: an import cycle", bold=False)
            output.new_line()
