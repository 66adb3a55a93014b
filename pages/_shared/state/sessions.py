"""Is this browser session still there? For work that outlives a script run (a model job).

Streamlit has no "session ended" hook, but its runtime knows which sessions are connected
(`Runtime.is_active_session`, safe from any thread). A closed tab disconnects at once; a
network blip reconnects to the same session within seconds, so a session counts as gone
only after `SESSION_GRACE_SECONDS` disconnected, and at once when the server is stopping.
Outside a running server (AppTest, plain Python) there is nothing to watch.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from streamlit import runtime
from streamlit.runtime import RuntimeState
from streamlit.runtime.scriptrunner import get_script_run_ctx

# How long a disconnected session keeps its jobs (a reconnect within it carries on).
# BPE_SESSION_GRACE_SECONDS changes it (the tests shorten it).
SESSION_GRACE_SECONDS = float(os.environ.get("BPE_SESSION_GRACE_SECONDS", "20"))
_ENDING = (RuntimeState.STOPPING, RuntimeState.STOPPED)


def session_watch(grace_seconds: float = SESSION_GRACE_SECONDS) -> Callable[[], bool] | None:
    """A callable, safe on any thread, that is True while the current session is connected
    (or was, less than ``grace_seconds`` ago) and the server is not stopping; None when
    there is no session to watch. Call it from a script run (it reads the run's session)."""
    context = get_script_run_ctx()
    if context is None or not runtime.exists():
        return None
    server = runtime.get_instance()
    session_id = context.session_id
    last_seen = [time.monotonic()]

    def alive() -> bool:
        if server.state in _ENDING:
            return False
        now = time.monotonic()
        if server.is_active_session(session_id):
            last_seen[0] = now
            return True
        return now - last_seen[0] < grace_seconds

    return alive
