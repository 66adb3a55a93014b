"""`python -m bpe`: see `bpe.cli`."""
import sys

from .cli import main

sys.exit(main())
