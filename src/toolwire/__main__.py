"""`python -m toolwire`: the `toolwire` command."""

from __future__ import annotations

import sys

from toolwire.cli import main

sys.exit(main())
