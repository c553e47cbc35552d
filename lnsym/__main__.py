"""``python -m lnsym`` runs the command line."""

from __future__ import annotations

import sys

from lnsym.cli import main

sys.exit(main())
