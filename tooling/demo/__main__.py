"""`python -m tooling.demo`: see `_launcher`."""

import sys

from tooling.demo._launcher import main

sys.exit(main(sys.argv[1:]))
