"""``python -m acp_bindings check-messages|replay ...``: see :mod:`acp_bindings._cli`."""

import sys

from acp_bindings._cli import main

if __name__ == "__main__":
    sys.exit(main())
