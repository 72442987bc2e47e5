"""The source trees a ledger append run compares, and running the writer script inside one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from tooling.bench._ledger_append_writer import Result, Spec

REPOSITORY = Path(__file__).resolve().parents[2]
WRITER_SCRIPT = Path(__file__).with_name("_ledger_append_writer.py")
SCRIPT_TIMEOUT_S = 900.0


@dataclass(frozen=True)
class Tree:
    name: str
    """'baseline' or 'current': the column its figures fill."""
    root: Path
    version: str
    """Its commit, short; '+ uncommitted changes' when the working tree differs."""


def current_tree() -> Tree:
    changed = bool(_git("status", "--porcelain"))
    version = _git("rev-parse", "--short", "HEAD") + (" + uncommitted changes" if changed else "")
    return Tree("current", REPOSITORY, version)


@contextmanager
def baseline_tree(ref: str) -> Iterator[Tree]:
    """A detached worktree of `ref` for the run, removed afterwards."""
    commit = _git("rev-parse", "--verify", "--short", f"{ref}^{{commit}}")
    with tempfile.TemporaryDirectory(prefix="fundsaga-baseline-") as directory:
        root = Path(directory) / "tree"
        _git("worktree", "add", "--detach", "--quiet", str(root), commit)
        try:
            # Installed, `sagas.migrations` is the repository's migrations/ (package-dir); from a
            # bare checkout on PYTHONPATH it would fall through to the installed one otherwise.
            link = root / "sagas" / "migrations"
            if not link.exists():
                link.symlink_to(Path("..") / "migrations", target_is_directory=True)
            yield Tree("baseline", root, f"{commit} ({ref})")
        finally:
            _git("worktree", "remove", "--force", str(root))


def run_in(tree: Tree, spec: Spec) -> Result:
    """One measurement with the tree's code; refused if it imported another tree's."""
    with tempfile.TemporaryDirectory(prefix="fundsaga-ledger-append-") as directory:
        out = Path(directory) / "result.json"
        _script(tree, json.dumps(asdict(spec)), str(out))
        result = Result(**json.loads(out.read_text()))
    for imported in (result.sagas_path, result.migrations_path):
        if not Path(imported).is_relative_to(tree.root.resolve()):
            raise RuntimeError(f"the {tree.name} run imported {imported}, not {tree.root}'s code")
    return result


def profile_in(tree: Tree, server_url: str, transfers: int) -> str:
    with tempfile.TemporaryDirectory(prefix="fundsaga-ledger-append-") as directory:
        out = Path(directory) / "profile.txt"
        _script(tree, "--profile", server_url, str(transfers), str(out))
        return out.read_text()


def _script(tree: Tree, *args: str) -> None:
    path = os.pathsep.join(filter(None, [str(tree.root), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-P", str(WRITER_SCRIPT), *args],
        cwd=tree.root,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=SCRIPT_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"the {tree.name} writer script exited with {done.returncode}:\n{done.stderr[-4000:]}"
        )


def _git(*args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=REPOSITORY, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()
