"""``python -m sagas.bench [options]``: the same as ``fundsaga bench [options]``."""

import argparse
import sys

from sagas._settings import Settings
from sagas.app import _cli_bench


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m sagas.bench")
    _cli_bench.add_parser(parser.add_subparsers(dest="command"))
    return _cli_bench.run(parser.parse_args(["bench", *sys.argv[1:]]), Settings())


if __name__ == "__main__":
    sys.exit(main())
