"""`python -m bpe.benchmarks`: every speed figure, as ratios measured in one process."""

import sys

from bpe.benchmarks.training import main

sys.exit(main())
