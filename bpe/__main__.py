"""`python -m bpe`: see `bpe.cli`."""

import sys

from bpe.cli.main import main

sys.exit(main())
