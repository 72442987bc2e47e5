from __future__ import annotations

import pytest

from tooling.bench.chain_cost import main


def test_the_chain_cost_bench_runs_one_and_two_writers_and_keeps_the_chain_whole(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Two writer processes race for the journal head; the bench checks the chain after each
    run (gapless, linked, as long as what was written) and fails otherwise."""
    assert main(["--url", "sqlite:///unused.db", "--transfers", "24", "--writers", "1", "2"]) == 0

    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "writers",
        "transfers",
        "postings",
        "seconds",
        "us/posting",
        "transfers/s",
    ]
    assert [line.split()[:3] for line in lines[1:]] == [["1", "24", "48"], ["2", "24", "48"]]
