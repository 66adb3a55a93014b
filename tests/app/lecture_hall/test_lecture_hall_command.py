"""The lecture hall's command, `python -m pages._shared.lecture_hall` (issue 25): the proxy's
configuration, checked by haproxy itself;
one-line errors for a missing haproxy, a taken port or a bad --backend; and stopping
leaves nothing behind, whether by Ctrl-C or with the command itself killed.

The whole lecture hall (two app processes, a class through the proxy) is run by
tests/e2e/test_server_lecture_hall.py."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import time

import pytest
from helpers import ROOT, children_of, free_ports, gone, nobody_listens, start_lecture_hall

from bpe.cli.errors import parse_arguments
from pages._shared.frame.navigation import app_pages
from pages._shared.lecture_hall import app_processes, command, proxy
from pages._shared.lecture_hall.command import main
from pages._shared.lecture_hall.proxy import Backend, haproxy_config, healthy, local_backends, parse_backend

HAPROXY = next((p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if os.access(p, os.X_OK)), None)
needs_haproxy = pytest.mark.skipif(
    HAPROXY is None and os.environ.get("REQUIRE_BROWSER") != "1", reason="haproxy is not installed"
)


# ==================== The configuration


def test_local_app_processes_take_the_ports_after_the_proxys():
    assert local_backends(8501, 3) == [
        Backend("127.0.0.1", 8502),
        Backend("127.0.0.1", 8503),
        Backend("127.0.0.1", 8504),
    ]


def test_the_config_sticks_browsers_by_cookie_passes_websockets_and_checks_health():
    config = haproxy_config("0.0.0.0", 8501, local_backends(8501, 2))
    lines = [line.strip() for line in config.splitlines()]
    assert "bind 0.0.0.0:8501" in lines
    assert "cookie bpe_server insert indirect nocache httponly" in lines
    assert "option httpchk GET /_stcore/health" in lines and "http-check expect status 200" in lines
    assert "timeout tunnel 1h" in lines  # an upgraded websocket may sit idle between a student's clicks
    assert "http-response set-header X-Bpe-Server %[srv_name]" in lines
    assert [line for line in lines if line.startswith("server ")] == [
        "server 127.0.0.1:8502 127.0.0.1:8502 cookie app1",
        "server 127.0.0.1:8503 127.0.0.1:8503 cookie app2",
    ]


@needs_haproxy
def test_haproxy_accepts_the_config_for_one_many_and_ipv6_backends(tmp_path):
    for backends in (
        local_backends(8501, 1),
        local_backends(8501, 16),
        [Backend("::1", 8502), Backend("localhost", 8503)],
    ):
        path = tmp_path / "haproxy.cfg"
        path.write_text(haproxy_config("127.0.0.1", 8501, backends))
        done = subprocess.run([HAPROXY, "-c", "-f", str(path)], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    "text, expected",
    [
        ("10.0.0.5:8501", Backend("10.0.0.5", 8501)),
        ("host-b:9000", Backend("host-b", 9000)),
        ("[::1]:8502", Backend("::1", 8502)),
    ],
)
def test_a_backend_is_host_colon_port(text, expected):
    assert parse_backend(text) == expected


@pytest.mark.parametrize("text", ["10.0.0.5", "host:", ":8501", "host:0", "host:70000", "host:85x1", "a b:1"])
def test_a_bad_backend_is_one_line(text, capsys):
    assert main(["--backend", text]) == 1
    err = capsys.readouterr().err
    assert f"{text!r} is not HOST:PORT" in err and err.count("\n") == 1


# ==================== One-line errors before anything starts


def test_app_processes_without_streamlits_speedups_are_said():
    assert command.speedups_note() is None  # requirements.txt installs uvloop and httptools
    note = command.speedups_note(installed=lambda name: name != "uvloop")
    assert note.startswith("note: uvloop is not installed in ") and "pip install -r requirements.txt" in note
    assert "uvloop and httptools are" in command.speedups_note(installed=lambda name: False)


def test_a_missing_haproxy_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setattr(proxy.shutil, "which", lambda name: None)
    monkeypatch.setattr(proxy, "HAPROXY_PLACES", ())
    assert main(["--processes", "1", "--port", str(free_ports(2))]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "haproxy is not installed" in err and "apt-get install haproxy" in err


def test_a_haproxy_path_that_is_not_a_program_is_refused(tmp_path, capsys):
    assert main(["--haproxy", str(tmp_path / "nowhere")]) == 1
    assert "is not an executable program" in capsys.readouterr().err


@needs_haproxy
@pytest.mark.parametrize("taken", [0, 2])  # the proxy's port, the second app process's
def test_a_taken_port_is_named(capsys, taken):
    port = free_ports(3)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port + taken))
        sock.listen()
        assert main(["--processes", "2", "--port", str(port), "--address", "127.0.0.1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"port {port + taken} " in err and "is taken" in err


@needs_haproxy
def test_a_backend_haproxy_cannot_resolve_is_one_line(capsys):
    assert main(["--backend", "nohost.invalid:8502", "--port", str(free_ports())]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "could not resolve address 'nohost.invalid'" in err and "haproxy.cfg" not in err


# ==================== Warmed for the class's link


@needs_haproxy
def test_warm_opens_the_link_and_every_page_in_each_process_before_the_proxy_opens():
    port = free_ports(3)
    # A vocab that is not a number: the link's note must reach the teacher, not only the class.
    link = "http://lab:8501/Tokenize?corpus=the+cat+in+the+hat&vocab=twenty"
    process, lines = start_lecture_hall(
        "--processes", "2", "--port", str(port), "--address", "127.0.0.1", "--warm", link
    )
    try:
        said = "".join(lines)
        pages = len(app_pages()) + 1  # the link's own run, then each page
        for name in (f"app1 :{port + 1}", f"app2 :{port + 2}"):
            assert f"[warm {name}] warmed {pages} pages in " in said, said
            assert f"[warm {name}] note: the link: a warning: " in said and "twenty" in said, said
        assert said.index("warmed") < said.index("BPE Lab: open")  # before any browser is let in
        assert "Traceback" not in said and "an exception" not in said and "an error box" not in said, said
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
    assert process.returncode == 143 and "Traceback" not in out


def test_an_app_process_that_cannot_be_warmed_is_said_not_fatal():
    nobody = free_ports()
    said = []
    app_processes.warm_backends({"app1": Backend("127.0.0.1", nobody)}, "?vocab=500", say=said.append)
    assert len(said) == 1 and said[0].startswith(f"[warm app1] not warmed: cannot reach http://127.0.0.1:{nobody} ")


# ==================== Stopping leaves nothing behind


@needs_haproxy
def test_an_app_process_that_dies_is_started_again_and_ctrl_c_stops_everything():
    port = free_ports(2)
    process, _ = start_lecture_hall("--processes", "1", "--port", str(port), "--address", "127.0.0.1")
    try:
        stop_cleanly_after_a_restart(process, port)
    finally:
        if process.poll() is None:  # a failed check above: leave nothing running
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=60)


def stop_cleanly_after_a_restart(process, port: int) -> None:
    first = children_of(process.pid)
    assert len(first) == 2  # one app process, haproxy
    app = next(pid for pid in first if "streamlit" in open(f"/proc/{pid}/cmdline").read())
    os.kill(app, signal.SIGKILL)
    # haproxy's health check may see the backend go down before the command sees its child
    # exit: its word ("[haproxy] ... is DOWN") can come first.
    said = lines_until(process, "exited with status -9; starting it again")
    assert all(line.startswith("[haproxy]") for line in said[:-1]), said
    deadline = time.monotonic() + 60
    while not healthy(f"http://127.0.0.1:{port}") and time.monotonic() < deadline:  # through the proxy
        time.sleep(0.2)
    assert healthy(f"http://127.0.0.1:{port}")
    children = children_of(process.pid)
    assert len(children) == 2 and app not in children
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C at the terminal sends (children have groups of their own)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "stopped the proxy and 1 app process(es)" in out and "Traceback" not in out
    assert "interrupted" not in out  # a clean stop is the lecture hall's normal end
    assert gone(children) and nobody_listens(port) and nobody_listens(port + 1)


def lines_until(process, expected: str, most: int = 10) -> list[str]:
    """The command's next lines up to the one saying ``expected`` (asserted to come within
    ``most`` lines: what it says comes whatever haproxy says, so reading on ends)."""
    said = [process.stdout.readline()]
    while expected not in said[-1] and said[-1] and len(said) < most:
        said.append(process.stdout.readline())
    assert expected in said[-1], said
    return said


@needs_haproxy
def test_the_proxy_dies_with_a_killed_lecture_hall_command():
    # Proxy only (the app process it points at is not running): no app to wait for.
    port, nobody = free_ports(), free_ports()
    process, _ = start_lecture_hall("--backend", f"127.0.0.1:{nobody}", "--port", str(port), "--address", "127.0.0.1")
    try:
        # The note follows the serving line, but haproxy's own word on its failed check of the
        # backend (passed on with "[haproxy]" in front) may come between them.
        lines_until(process, "does not answer /_stcore/health yet")
        children = children_of(process.pid)
        assert len(children) == 1
    finally:
        process.kill()  # no clean-up code runs: the kernel must end the child (PR_SET_PDEATHSIG)
        process.wait()
    assert gone(children) and nobody_listens(port)


# ==================== The command's name, as --help and the README say it


def test_help_names_the_lecture_halls_command(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage: python -m pages._shared.lecture_hall ")


def test_the_docs_lecture_hall_commands_are_the_commands_options():
    section = (ROOT / "docs" / "lecture-hall.md").read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [line.split("  #")[0].strip() for line in section.splitlines() if " -m pages._shared.lecture_hall " in line]
    commands = [line for line in lines if line.startswith(".venv/bin/python -m pages._shared.lecture_hall")]
    assert len(commands) >= 3 and "bpe serve" not in section.replace("it was `python -m bpe serve`", "")
    for line in commands:
        argv = shlex.split(line)[3:]
        parse_arguments(command.make_parser(), argv)  # every option and value as the command takes it


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--processes", "0"], "argument --processes: 0 must be at least 1"),
        (["--port", "70000"], "argument --port: 70000 is not a port number"),
        (["--stop-seconds", "-1"], "argument --stop-seconds: -1 is not a number of seconds"),
        (["--stop-seconds", "nan"], "argument --stop-seconds: nan is not a number of seconds"),
    ],
)
def test_a_bad_option_value_is_one_line_and_status_1(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)  # nothing is started: the value is refused first
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: {message}") and captured.err.count("\n") == 1, captured.err
    assert captured.out == "" and os.listdir(tmp_path) == []


# ==================== How many app processes (issue 41, failures 9 and 16)


def test_more_app_processes_than_the_machine_carries_are_refused_naming_cores_and_memory(tmp_path, monkeypatch, capsys):
    """Failure 9: --processes had no upper bound (30 on 2 cores: 1.9 GB in 7 s)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(command, "available_cores", lambda: 2)
    monkeypatch.setattr(command, "available_memory_bytes", lambda: 20 << 30)
    monkeypatch.setattr(command, "find_haproxy", lambda given: "haproxy")
    assert main(["--processes", "30", "--port", str(free_ports())]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--processes 30: this machine has 2 cores and 20.0 GiB of memory available" in err
    assert "at most 2 here" in err and os.listdir(tmp_path) == []
    # memory binds first on a machine with many cores and little memory
    with pytest.raises(command.BpeError, match="64 cores and 1.0 GiB .* at most 2 here"):
        command.check_processes(3, cores=64, available=1 << 30)
    command.check_processes(2, cores=2, available=None)  # memory unknown: the cores alone


def test_stopping_before_the_proxy_started_counts_every_app_process(monkeypatch):
    """Failure 16: interrupted before haproxy started, the command reported one app process
    fewer than it had started (it took the first child for the proxy)."""
    import shutil

    said: list[str] = []
    monkeypatch.setattr(command, "find_haproxy", lambda given: "haproxy")
    monkeypatch.setattr(command, "check_config", lambda haproxy, config: None)
    monkeypatch.setattr(command, "_check_before_starting", lambda args, backends, remote: None)
    monkeypatch.setattr(command, "app_command", lambda backend: [shutil.which("sleep"), "30"])

    def interrupted(children, backends, seconds):
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "wait_healthy", interrupted)
    args = parse_arguments(command.make_parser(), ["--processes", "2", "--port", str(free_ports(3))])
    with pytest.raises(KeyboardInterrupt):
        command.run_lecture_hall(args, say=said.append)
    assert said[-1] == "stopped 2 app process(es)", said


@pytest.mark.parametrize("span", [1, 3])
def test_free_ports_are_outside_the_range_outgoing_connections_take(span):
    # A port the kernel may give an outgoing connection can be taken between the pick and
    # the server's bind ("Port 56906 is not available" on a machine running two suites).
    import random

    low, high = proxy.ephemeral_ports()
    state = random.getstate()
    for _ in range(20):
        port = free_ports(span)
        assert port + span - 1 < low or port > high, f"{port} is in the ephemeral range {low}-{high}"
        assert proxy.FIRST_PICKED <= port and port + span - 1 <= 65535
        assert all(proxy.port_free(port + n) for n in range(span))
    assert random.getstate() == state, "picking ports moved the process's random state"


def test_a_taken_port_is_not_picked(monkeypatch):
    # Eleven ports outside a wide ephemeral range, all taken but one: that one is found
    # (200 picks miss it with odds of 5 in a billion); all taken, it is said in one line.
    free = proxy.FIRST_PICKED + 7
    monkeypatch.setattr(proxy, "ephemeral_ports", lambda: (proxy.FIRST_PICKED + 10, 65534))
    monkeypatch.setattr(proxy, "port_free", lambda port: port == free)
    assert free_ports() == free
    monkeypatch.setattr(proxy, "port_free", lambda port: False)
    with pytest.raises(RuntimeError, match="no free run of 1 loopback ports outside the ephemeral range 10010-65534"):
        free_ports()
