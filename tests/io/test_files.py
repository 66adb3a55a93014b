"""The atomic writer (`bpe.io.files`) on real failures: a read-only file system (a tmpfs
mounted read-only in a private mount namespace, so the OS itself answers EROFS) and
writers killed with SIGKILL, whose temporary files the next write of the same target
recognises by their name (host and pid) and removes, and only those.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest
from helpers import ROOT

from bpe import BPETokenizer
from bpe.io.files import atomic_write_bytes, atomic_writer, remove_stale_temporaries, staged_files, temporary_path


def _can_mount_privately() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    return probe.returncode == 0


needs_private_mounts = pytest.mark.skipif(
    not _can_mount_privately(),
    reason="no private mount namespace here (unshare -rm): no way to make a read-only file system without root",
)


LISTING = """
import hashlib, os, sys
folder = sys.argv[1]
for name in sorted(os.listdir(folder)):
    with open(os.path.join(folder, name), "rb") as file:
        print(f"{name}:{hashlib.sha256(file.read()).hexdigest()}")
"""


def on_read_only_folder(folder, old: dict[str, bytes], script: str) -> subprocess.CompletedProcess:
    """Run ``script`` (Python) in a private mount namespace where ``folder`` is a tmpfs that
    holds ``old`` (name -> bytes) and has been remounted read-only; stdout ends with the
    folder's files afterwards, as ``name:sha256`` lines."""
    env = dict(os.environ, PY=sys.executable, SCRIPT=script, LISTING=LISTING, FOLDER=str(folder))
    setup = " && ".join(
        f'printf %s {shlex.quote(value.decode())} > "$FOLDER"/{shlex.quote(name)}' for name, value in old.items()
    )
    shell = (
        f'mount -t tmpfs tmpfs "$FOLDER" && {setup} && mount -o remount,ro "$FOLDER" && '
        '"$PY" -c "$SCRIPT"; echo rc=$?; "$PY" -c "$LISTING" "$FOLDER"'
    )
    return subprocess.run(["unshare", "-rm", "sh", "-c", shell], capture_output=True, text=True, cwd=ROOT, env=env)


@needs_private_mounts
def test_every_writer_on_a_read_only_file_system_fails_in_one_line_and_keeps_the_old_file(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    script = textwrap.dedent(
        f"""
        import sys
        from bpe import BPETokenizer, BpeError
        from bpe.io.files import atomic_write_bytes, staged_files
        target = {str(folder / "out.json")!r}
        tries = [
            lambda: atomic_write_bytes(target, b"new"),
            lambda: BPETokenizer.train("low lower", 12).save(target),
        ]
        def staged():
            with staged_files() as stage:
                stage.write(target, b"new")
                stage.write({str(folder / "ids.pt")!r}, b"new")
        tries.append(staged)
        for attempt in tries:
            try:
                attempt()
            except BpeError as error:
                print("refused:", error)
        """
    )
    done = on_read_only_folder(folder, {"out.json": b"old", "ids.pt": b"old"}, script)
    assert done.stderr == ""  # no traceback
    lines = done.stdout.splitlines()
    refusals = [line for line in lines if line.startswith("refused:")]
    assert len(refusals) == 3
    assert all("Read-only file system" in line and "out.json" in line for line in refusals)
    import hashlib

    old = hashlib.sha256(b"old").hexdigest()
    assert lines[-2:] == [f"ids.pt:{old}", f"out.json:{old}"]  # the old files, nothing beside them


@needs_private_mounts
def test_export_to_a_read_only_file_system_is_one_line(tmp_path):
    tokenizer = tmp_path / "tok.json"
    BPETokenizer.train("low lower lowest newest widest " * 5, 270, alphabet="bytes").save(tokenizer)
    folder = tmp_path / "ro"
    folder.mkdir()
    for fmt, name in (("hf", "out.json"), ("tiktoken", "out.tiktoken"), ("minbpe", "out.model")):
        script = (
            "import sys; from bpe.cli.main import main; "
            f"sys.exit(main(['export', '--tokenizer', {str(tokenizer)!r}, '--format', {fmt!r}, "
            f"'--output', {str(folder / name)!r}]))"
        )
        done = on_read_only_folder(folder, {name: b"old"}, script)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1 and "Read-only file system" in done.stderr
        assert "rc=1" in done.stdout
        assert done.stdout.splitlines()[-1].startswith(f"{name}:")  # only the old file
        assert len(done.stdout.splitlines()) == 2


# ==================== SIGKILL: temporaries that say whose they are


KILLED_WRITER = """
import sys, time
from bpe.io.files import atomic_writer
with atomic_writer(sys.argv[1]) as handle:
    handle.write(b"half")
    handle.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


def writer_inside_its_temporary(target) -> subprocess.Popen:
    """A process that has opened its temporary file beside ``target`` and sleeps there."""
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(target)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert child.stdout.readline().strip() == "writing"
    return child


def temporaries(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".old")))


def test_the_next_write_removes_what_a_killed_writer_left_and_only_that(tmp_path):
    target = tmp_path / "tok.json"
    target.write_bytes(b"old")
    killed = writer_inside_its_temporary(target)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    left = temporaries(tmp_path)
    assert len(left) == 1 and left[0].startswith("tok.json.bpe-") and f"-{killed.pid}-" in left[0]
    alive = writer_inside_its_temporary(target)  # a writer still at work: its file stays
    (tmp_path / "tok.json.mine.tmp").write_bytes(b"someone else's")  # not a name of ours
    (tmp_path / ("other.json.bpe-x-1-" + "0" * 32 + ".tmp")).write_bytes(b"another target's")
    try:
        theirs = set(temporaries(tmp_path)) - set(left)
        atomic_write_bytes(target, b"new")
        assert target.read_bytes() == b"new"
        assert set(temporaries(tmp_path)) == theirs  # the killed writer's file is gone, the rest stays
    finally:
        alive.kill()
        alive.wait()


def test_the_next_build_removes_what_killed_writers_of_its_outputs_left(tmp_path):
    pytest.importorskip("torch")
    train = tmp_path / "train.txt"
    train.write_text("low lower lowest newest widest\n" * 50)
    out = tmp_path / "out"
    (out / "enc").mkdir(parents=True)
    for target in (out / "tok.json", out / "enc" / "train_ids.pt"):  # as a SIGKILL mid-build leaves them
        killed = writer_inside_its_temporary(target)
        killed.send_signal(signal.SIGKILL)
        killed.wait()
    assert len([p for p in out.rglob("*.tmp")]) == 2
    argv = [sys.executable, "-m", "bpe", "build", "--train", str(train), "--val", str(train), "--test", str(train)]
    argv += ["--tokenizer-output", str(out / "tok.json"), "--encoded-output-dir", str(out / "enc")]
    argv += ["--target-vocab-size", "30", "--quiet"]
    assert subprocess.run(argv, cwd=ROOT, capture_output=True).returncode == 0
    assert [p.name for p in out.rglob("*") if p.name.endswith((".tmp", ".old"))] == []


def test_temporary_names_carry_the_pid_and_are_never_taken_for_stale_while_it_runs(tmp_path):
    target = tmp_path / "x.bin"
    temp = temporary_path(target)
    assert f"-{os.getpid()}-" in temp.name and temp.name.startswith("x.bin.bpe-")
    temp.write_bytes(b"")
    assert remove_stale_temporaries(target) == []  # ours, and we are running
    with atomic_writer(target) as handle:
        handle.write(b"x")
    assert temp.exists() and target.read_bytes() == b"x"
    with staged_files() as stage:
        stage.write(target, b"y")
    assert target.read_bytes() == b"y"


def test_the_folder_check_before_a_long_job_leaves_no_new_folders(tmp_path):
    # Found by probing: `count /dev/zero --output new/sub/c.parquet` refused the input in
    # one line but left new/sub behind; the check makes the folders only to try them.
    from bpe.io.files import check_writable_folder

    target = tmp_path / "new" / "sub"
    assert check_writable_folder(target) == target
    assert list(tmp_path.iterdir()) == []
    with atomic_writer(target / "c.bin") as handle:  # the writer makes them at the end
        handle.write(b"x")
    assert (target / "c.bin").read_bytes() == b"x"
