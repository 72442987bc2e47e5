"""`make run`: the provider simulator, then `fundsaga dev --demo` against it (tooling: not in
the wheel)."""

from tooling.demo._launcher import main

__all__ = ["main"]
