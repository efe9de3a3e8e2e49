"""``python -m webtorch ...``: the webtorch command (see webtorch.cli)."""
import sys

from .cli import main

sys.exit(main())
