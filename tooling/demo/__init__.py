"""`make run`: the provider simulator, then `fundsaga dev --demo` against it (tooling: not in
the wheel)."""

from tooling.demo._launcher import free_port, main

__all__ = ["free_port", "main"]
