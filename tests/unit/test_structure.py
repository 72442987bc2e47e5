"""The product's imports, read from its source: no cycle, and no module imports the facade."""

from __future__ import annotations

from pathlib import Path

from tooling.lint.import_graph import cycles, facade_importers, import_graph

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("sagas", "workflows", "activities")


def test_no_two_modules_of_the_product_import_each_other() -> None:
    graph = import_graph(ROOT, PRODUCT)

    assert {"sagas.engine", "sagas.transfer"} <= graph["workflows.transfer"]
    assert cycles(graph) == []


def test_no_module_of_the_product_imports_the_root_facade() -> None:
    graph = import_graph(ROOT, PRODUCT)

    assert facade_importers(graph, "sagas") == []


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_cycle_through_a_type_only_import_is_found_and_one_inside_a_function_is_not(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/_a.py": "from pkg._b import B\n",
            "pkg/_b.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ._c import C\n"
            ),
            "pkg/_c.py": "from . import _a\n",
            "pkg/_d.py": "def late():\n    from pkg._a import A\n",
            "pkg/_e.py": "import pkg._d\n",
        },
    )

    graph = import_graph(tmp_path, ["pkg"])

    assert cycles(graph) == [["pkg._a", "pkg._b", "pkg._c", "pkg._a"]]
    assert graph["pkg._d"] == set()
    assert graph["pkg._e"] == {"pkg._d"}


def test_a_name_imported_from_the_root_package_is_an_import_of_the_facade(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/inner/__init__.py": "X = 1\n",
            "pkg/inner/_uses.py": "from pkg import inner\nfrom pkg.inner import X\n",
            "app/__init__.py": "",
            "app/run.py": "from pkg import X\n",
        },
    )

    graph = import_graph(tmp_path, ["pkg", "app"])

    assert graph["pkg.inner._uses"] == {"pkg.inner"}
    assert facade_importers(graph, "pkg") == ["app.run"]
