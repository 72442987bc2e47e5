"""`python -m tooling.provider --port N`: the payment-provider simulator as its own process."""

from __future__ import annotations

import argparse
import os
import sys

from tooling.provider._process import WEBHOOK_SECRET_ENV
from tooling.provider._server import ProviderServer


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tooling.provider", description=__doc__)
    parser.add_argument("--port", type=int, default=8470, help="0: any free port")
    args = parser.parse_args()
    # From the environment, not the command line: other users can read a process's arguments.
    server = ProviderServer(args.port, os.environ.get(WEBHOOK_SECRET_ENV, ""))
    # The first line tells a parent process which port it got.
    print(f"provider listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
