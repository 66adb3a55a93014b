"""The warm-up client (`pages._shared.lecture_hall.warm_up`): which settings a link carries,
and what it says of an app process it cannot reach. test_lecture_hall_command.py warms real
app processes through the lecture hall's ``--warm``."""

from __future__ import annotations

import pytest
from helpers import free_ports

from pages._shared.lecture_hall.warm_up import WarmingFailed, link_query, main, warm


@pytest.mark.parametrize(
    "link, query",
    [
        ("http://lab:8501/?corpus=Tiny+Shakespeare&vocab=1000", "corpus=Tiny+Shakespeare&vocab=1000"),
        ("http://lab:8501/Merge_by_merge?corpus=x&step=3#frame", "corpus=x&step=3"),
        ("?vocab=500", "vocab=500"),
        ("corpus=x&vocab=500", "corpus=x&vocab=500"),
        ("  http://lab:8501/?vocab=500\n", "vocab=500"),
        ("http://lab:8501/", ""),
        ("", ""),
    ],
)
def test_the_settings_are_the_links_query(link, query):
    assert link_query(link) == query


def test_an_app_process_that_is_not_there_is_named(capsys):
    port = free_ports()
    with pytest.raises(WarmingFailed, match=f"cannot reach http://127.0.0.1:{port} "):
        warm(f"http://127.0.0.1:{port}", "?vocab=500")
    assert main([f"http://127.0.0.1:{port}", "?vocab=500"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"not warmed: cannot reach http://127.0.0.1:{port} ") and out.count("\n") == 1


def test_a_port_that_answers_something_other_than_http_is_not_healthy():
    """Found in a busy run: another program had an app process's port and echoed the health
    check's request back; http.client's BadStatusLine escaped the lecture hall as a traceback."""
    import socket
    import threading

    from pages._shared.lecture_hall.proxy import healthy

    with socket.create_server(("127.0.0.1", 0)) as server:

        def echo_once() -> None:
            connection, _ = server.accept()
            with connection:
                connection.sendall(connection.recv(1024))  # the request line back: not a status line

        threading.Thread(target=echo_once, daemon=True).start()
        assert healthy(f"http://127.0.0.1:{server.getsockname()[1]}", timeout=5.0) is False
