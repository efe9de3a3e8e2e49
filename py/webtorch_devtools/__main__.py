"""``python -m webtorch_devtools ...``: the webtorch command (see webtorch_devtools.cli)."""
import sys

from .cli import main

sys.exit(main())
