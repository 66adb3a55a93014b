"""`python -m pages._shared.lecture_hall`: see `command`."""

import sys

from pages._shared.lecture_hall.command import main

sys.exit(main())
