"""`python -m bpe.benchmarks`: every speed figure, as ratios measured in one process.

``python -m bpe.benchmarks scale ...`` runs the corpus-scale benchmark (`bpe.benchmarks.scale`);
``python -m bpe.benchmarks cs336`` Stanford CS336's train_bpe job alone (`bpe.benchmarks.training.bench_cs336`).
"""

import sys

if len(sys.argv) > 1 and sys.argv[1] == "scale":
    from bpe.benchmarks.scale import main as scale_main

    sys.exit(scale_main(sys.argv[2:]))

if len(sys.argv) > 1 and sys.argv[1] == "cs336":
    from bpe.benchmarks.training import bench_cs336

    sys.exit(0 if bench_cs336() is not None else 1)

from bpe.benchmarks.training import main

sys.exit(main())
