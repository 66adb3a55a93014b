"""docs/files-from-strangers.md says the code's limits: each row's figure is the value of the
constant it names, and every limit the readers of tokenizer, run, counts and lesson files
declare (a module-level ``MAX_...`` of theirs) has its row."""

from __future__ import annotations

import importlib
import inspect
import re
import tomllib

from doc_pages import DOCS, ROOT, table_rows

PAGE = DOCS / "files-from-strangers.md"
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
STREAMLIT_MB = 1 << 20  # server.maxUploadSize is in MB of 2**20 bytes (pages/_shared/frame/sidebar.upload_limit_bytes)
FIGURE = re.compile(r"^(?P<number>\d[\d,]*(?:\.\d+)?)(?: (?P<unit>KiB|MiB|GiB|bytes))?$")
# The readers whose every MAX_ constant the page must list (by the module that defines it).
COMPLETE = (
    "bpe.io.untrusted",
    "bpe.io.budget",
    "bpe.storage",
    "bpe.specials",
    "bpe.pretokenize",
    "bpe.pattern_safety",
    "bpe.scale.partitions",
    "bpe.scale.run_file",
    "bpe.scale.counts_file",
    "bpe.formats.fileio",
    "bpe.formats.tiktoken_ranks",
    "bpe.formats.tiktoken_bundle",
    "bpe.gpt2.files",
    "bpe.analysis.lesson",
)
DEFINED_LIMIT = re.compile(r"^((?:UPLOAD_)?MAX_[A-Z_]+)\s*=", re.M)


def limit_rows() -> list[tuple[str, str, str]]:
    """(what, limit, constant) of every row that names a constant in backticks."""
    rows = []
    for cells in table_rows(PAGE):
        if len(cells) == 3 and cells[2].startswith("`") and cells[2].endswith("`"):
            rows.append((cells[0], cells[1], cells[2].strip("`")))
    return rows


def figure(limit: str) -> float:
    match = FIGURE.match(limit)
    assert match, f"{limit!r}: a limit is a number, then KiB, MiB, GiB or bytes (or nothing)"
    return float(match["number"].replace(",", "")) * UNITS.get(match["unit"], 1)


def constant(reference: str) -> float:
    """The value ``reference`` names: ``package.module.NAME``, or ``file: section.key`` of a
    TOML file (Streamlit's configuration)."""
    if ": " in reference:
        path, key = reference.split(": ")
        section, name = key.split(".")
        value = tomllib.loads((ROOT / path).read_text(encoding="utf-8"))[section][name]
        assert name == "maxUploadSize", f"{reference}: say in this test what unit {name} is in"
        return value * STREAMLIT_MB
    module, name = reference.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def test_the_page_has_its_table():
    assert len(limit_rows()) >= 50


def test_every_figure_is_its_constants_value():
    wrong = [
        f"{what}: the page says {limit}, {reference} is {constant(reference):,}"
        for what, limit, reference in limit_rows()
        if figure(limit) != constant(reference)
    ]
    assert wrong == []


def test_every_limit_of_the_readers_is_on_the_page():
    listed = {reference for _, _, reference in limit_rows()}
    missing = []
    for name in COMPLETE:
        source = inspect.getsource(importlib.import_module(name))
        missing += [f"{name}.{limit}" for limit in DEFINED_LIMIT.findall(source) if f"{name}.{limit}" not in listed]
    assert missing == [], "add these limits to docs/files-from-strangers.md"


def test_a_wrong_figure_is_caught():
    assert figure("64 MiB") == 64 << 20 and figure("4,096") == 4096 and figure("0.1") == 0.1
    assert figure("50,000,000 bytes") == 50_000_000
    assert figure("63 MiB") != constant("bpe.io.untrusted.MAX_FILE_BYTES")
