"""``python -m tooling.bench [options]``: the benchmark suite; ``--help`` lists the options."""

import sys

from tooling.bench._cli import build_parser, run

if __name__ == "__main__":
    sys.exit(run(build_parser().parse_args()))
