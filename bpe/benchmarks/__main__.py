"""`python -m bpe.benchmarks`: every speed figure, as ratios measured in one process.

``python -m bpe.benchmarks scale ...`` runs the corpus-scale benchmark (`bpe.benchmarks.scale`).
"""

import sys

if len(sys.argv) > 1 and sys.argv[1] == "scale":
    from bpe.benchmarks.scale import main as scale_main

    sys.exit(scale_main(sys.argv[2:]))

from bpe.benchmarks.training import main

sys.exit(main())
