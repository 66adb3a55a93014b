"""The machine's one line of model jobs (the Model page): joined once per server process.

At most `training_slots()` jobs train at once on this machine, however many server
processes it runs (a lecture hall: `python -m pages._shared.lecture_hall`), and the rest wait their turn:
the slots and the line are locked files in `bpe.paths.machine_dir()`, shared by every
process there. torch's thread count, a process-wide setting, is set once to
`training_threads()`; each job's own thread trains at `TRAINING_NICENESS`; and when the
server stops, every job is abandoned (out of torch between one step and the next, without
the summary a Stop button gets) and waited for: an interpreter that ends with a thread
inside torch aborts the process.
"""

from __future__ import annotations

import atexit

import streamlit as st

from bpe.lm.job import training_slots, training_threads
from bpe.lm.slots import JobSlots, MachineJobSlots
from bpe.paths import machine_dir

SHUTDOWN_SECONDS = 30  # how long a stopping server waits for jobs to finish their step
# A job's training thread is this much nicer than the threads answering the class (nice
# 10: about a tenth of a core where a page and the job want the same one), so on a busy
# machine a step or a page visit runs first and the job takes the time left over.
TRAINING_NICENESS = 10


@st.cache_resource(show_spinner=False)
def server_slots() -> JobSlots:
    """The machine's line of model jobs, joined when the first job starts; with it, once
    per server process, the thread policy and the clean shutdown (see the module doc)."""
    import torch  # only once a model is to be trained: torch takes seconds to load

    torch.set_num_threads(training_threads())
    slots = MachineJobSlots(training_slots(), machine_dir() / "model-slots")
    atexit.register(slots.stop_all, SHUTDOWN_SECONDS)
    return slots
