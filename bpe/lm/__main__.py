"""`python -m bpe.lm train ...`: the same as `python -m bpe lm train ...`."""
from __future__ import annotations

from bpe.lm.cli import main

raise SystemExit(main())
