"""The documentation as its tests read it: README.md and docs/*.md, their fenced blocks,
tables and links.

A shell block's info string says whether the tests run it:

    ```bash runnable                         run as written, in a copy of the checkout
    ```bash not-runnable: starts a server    not run; the reason is required

so a command a reader copies from the docs is one the tests ran, and one they did not run
says why (network, a server, minutes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
DATA_README = ROOT / "data" / "README.md"  # the shipped texts' credits, and the command that made the shipped run
SHELL_LANGUAGES = ("bash", "sh", "shell", "console")
RUNNABLE = "runnable"
NOT_RUNNABLE = "not-runnable:"
FENCE = re.compile(r"^(?P<indent> *)```(?P<info>.*)$")  # indented inside a list item too


def pages() -> list[Path]:
    """README.md, every page of docs/ by name, and data/README.md."""
    return [README, *sorted(DOCS.glob("*.md")), DATA_README]


@dataclass(frozen=True)
class Block:
    """One fenced block: where it starts (its fence's line, 1-based), its info string
    (``bash runnable``) and its text."""

    page: Path
    line: int
    info: str
    text: str

    @property
    def language(self) -> str:
        return self.info.split(" ", 1)[0]

    @property
    def marker(self) -> str:
        """What follows the language: ``runnable``, ``not-runnable: <why>`` or nothing."""
        return self.info[len(self.language) :].strip()

    @property
    def runnable(self) -> bool:
        return self.marker == RUNNABLE

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page``, in order."""
    found, opened, lines = [], None, []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        fence = FENCE.match(line)
        if opened is None and fence:
            opened, lines = (number, fence["info"].strip(), len(fence["indent"])), []
        elif opened is not None and line.strip() == "```":
            found.append(Block(page, opened[0], opened[1], "\n".join(lines) + "\n"))
            opened = None
        elif opened is not None:
            lines.append(line[opened[2] :] if line[: opened[2]].isspace() else line)
    assert opened is None, f"{page.relative_to(ROOT)}:{opened[0]}: a fenced block is never closed"
    return found


def shell_blocks(page: Path) -> list[Block]:
    return [block for block in blocks(page) if block.language in SHELL_LANGUAGES]


def commands(block: Block) -> list[str]:
    """The block's commands: continuation lines joined, comments and blank lines left out."""
    joined = block.text.replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip() and not line.startswith("#")]


def table_rows(page: Path) -> list[list[str]]:
    """The cells of every row of every Markdown table of ``page`` (header and rule rows too)."""
    rows = []
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("|") and line.endswith("|"):
            rows.append([cell.strip() for cell in line[1:-1].split("|")])
    return rows


def anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of ``page``'s headings: lower case, punctuation dropped but
    hyphens, spaces as hyphens ("## GPT-2 and GPT-4" -> ``gpt-2-and-gpt-4``)."""
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"^ *```.*?^ *```", "", text, flags=re.S | re.M)  # a '# comment' in a block is no heading
    headings = re.findall(r"^#{1,6} (.+)$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}
