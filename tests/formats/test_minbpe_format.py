"""minbpe .model files: export -> BPE Lab's reader (minbpe's rules) -> identical ids; files as
minbpe itself trains and saves them -> read -> identical ids vs minbpe's own encoder; bad
files -> one-line errors.

minbpe is not a package, so `MiniRegexTokenizer` below restates what its
``RegexTokenizer`` does (karpathy/minbpe, ``base.py`` and ``regex.py``): train by merging
the most frequent pair of ids, save the ``minbpe v1`` file, encode a chunk by merging the
pair with the lowest merge index everywhere until none is left.
"""

from __future__ import annotations

import pytest
import regex
from format_helpers import refused
from format_texts import MULTILINGUAL_HELD_OUT, MULTILINGUAL_TRAIN

from bpe.errors import BpeError, TokenizerFileError
from bpe.formats import export_and_prove, load_minbpe_file, minbpe_from_bytes
from bpe.formats.export import export_files
from bpe.formats.minbpe import export_minbpe
from bpe.pairs import merge_pair  # minbpe's merge(): every occurrence, left to right
from bpe.pretokenize import GPT4_PATTERN
from bpe.tokenizer import BPETokenizer

MINBPE_GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""
)


class MiniRegexTokenizer:
    """minbpe's RegexTokenizer, restated: ids 0..255 are bytes, merge i makes id 256 + i."""

    def __init__(self, pattern: str = MINBPE_GPT4_PATTERN, special_tokens: dict | None = None):
        self.pattern = pattern
        self.merges: dict[tuple[int, int], int] = {}
        self.special_tokens = dict(special_tokens or {})

    def train(self, text: str, vocab_size: int) -> None:
        chunks = [list(chunk.encode("utf-8")) for chunk in regex.findall(self.pattern, text)]
        for i in range(vocab_size - 256):
            counts: dict = {}
            for ids in chunks:
                for pair in zip(ids, ids[1:]):
                    counts[pair] = counts.get(pair, 0) + 1
            if not counts:
                break
            pair = max(counts, key=counts.get)
            self.merges[pair] = 256 + i
            chunks = [merge_pair(ids, pair, 256 + i) for ids in chunks]

    def save_model(self) -> str:
        lines = ["minbpe v1", self.pattern, str(len(self.special_tokens))]
        lines += [f"{special} {idx}" for special, idx in self.special_tokens.items()]
        lines += [f"{a} {b}" for a, b in self.merges]
        return "\n".join(lines) + "\n"

    def encode(self, text: str) -> list[int]:
        out = []
        for chunk in regex.findall(self.pattern, text):
            ids = list(chunk.encode("utf-8"))
            while len(ids) >= 2:
                pairs = set(zip(ids, ids[1:]))
                pair = min(pairs, key=lambda p: self.merges.get(p, float("inf")))
                if pair not in self.merges:
                    break
                ids = merge_pair(ids, pair, self.merges[pair])
            out.extend(ids)
        return out


# ==================== Export, then read back


@pytest.mark.parametrize("pretokenizer", [None, "gpt2", "gpt4"])
def test_export_reads_back_with_identical_ids(tmp_path, trained, pretokenizer):
    tokenizer = trained("bytes", pretokenizer)
    report = export_and_prove(tokenizer, "minbpe", tmp_path / "lab.model", check_text=MULTILINGUAL_HELD_OUT)
    assert report.proof.identical, report.proof.line
    assert report.lesson.exact and not report.left_out


def test_export_is_encoded_identically_by_minbpe_itself(trained):
    tokenizer = trained("bytes", "gpt4")
    text, left_out = export_minbpe(tokenizer)
    lines = text.splitlines()
    assert lines[:3] == ["minbpe v1", GPT4_PATTERN, "0"] and not left_out
    minbpe = MiniRegexTokenizer(lines[1])
    for number, line in enumerate(lines[3:]):
        a, b = map(int, line.split())
        minbpe.merges[(a, b)] = 256 + number
    assert minbpe.encode(MULTILINGUAL_HELD_OUT) == tokenizer.encode(MULTILINGUAL_HELD_OUT)


@pytest.mark.shared_data
def test_export_is_identical_on_wikitext(tmp_path, wiki_trained, wikitext):
    report = export_and_prove(wiki_trained("bytes", "gpt2"), "minbpe", tmp_path / "lab.model", check_text=wikitext[1])
    assert report.proof.identical, report.proof.line


def test_export_refusals_say_why(trained):
    refused(export_files, trained("characters", None), "minbpe", match="minbpe works on bytes")
    refused(export_files, trained("bytes", None), "minbpe", name="lab.txt", match="must be named \\*.model")
    shuffled = BPETokenizer([bytes([v]) for v in reversed(range(256))], [], alphabet="bytes")
    refused(export_files, shuffled, "minbpe", match="numbers the 256 bytes by value")
    spaced = BPETokenizer([bytes([v]) for v in range(256)], [], alphabet="bytes", pretokenizer=r"\S+|[ ]+|\s")
    assert export_minbpe(spaced)[0].splitlines()[1] == r"\S+|[ ]+|\s"
    trailing = BPETokenizer([bytes([v]) for v in range(256)], [], alphabet="bytes", pretokenizer="\\S+|\\s+| ")
    refused(export_files, trailing, "minbpe", match="reads the pattern line with .strip")


# ==================== Files minbpe makes, read by BPE Lab


@pytest.mark.parametrize("pattern", [MINBPE_GPT4_PATTERN, ""])
def test_files_trained_and_saved_by_minbpe_encode_identically(tmp_path, pattern):
    minbpe = MiniRegexTokenizer(pattern or r"[\s\S]+", special_tokens={"<|endoftext|>": 100257})
    minbpe.train(MULTILINGUAL_TRAIN, 256 + 120)
    path = tmp_path / "trained.model"
    saved = minbpe.save_model()
    if not pattern:  # a BasicTokenizer file: empty pattern line, no split
        saved = saved.replace(r"[\s\S]+", "", 1)
    path.write_text(saved, encoding="utf-8")
    imported = load_minbpe_file(path)
    assert imported.special_tokens == {"<|endoftext|>": 100257}
    assert imported.vocab_size == 256 + 120 + 1
    for text in (MULTILINGUAL_HELD_OUT, MULTILINGUAL_TRAIN, "", "   \n\n x"):
        assert imported.encode(text) == minbpe.encode(text)
    assert imported.encode("a<|endoftext|>b", allowed_special="all")[1] == 100257
    assert imported.decode(imported.encode(MULTILINGUAL_HELD_OUT)) == MULTILINGUAL_HELD_OUT
    lab = BPETokenizer(
        imported.base_tokens, imported.merges, alphabet=imported.alphabet, pretokenizer=imported.pretokenizer
    )
    assert lab.encode(MULTILINGUAL_HELD_OUT) == imported.encode(MULTILINGUAL_HELD_OUT)


def test_a_minbpe_token_with_two_ids_is_noted():
    raw = b"minbpe v1\n\n0\n97 97\n97 256\n256 97\n"  # 'aaa' twice: ids 257 and 258
    imported = minbpe_from_bytes(raw, name="two.model")
    assert imported.itos[257] == imported.itos[258] == b"aaa"
    assert any("two ids" in note for note in imported.notes)
    assert imported.encode("aaa") == [258]  # 'aa' + 'a' (merge 3) is the only way from 'aa' 'a'


# ==================== Bad files


BAD_MODELS = {
    "empty": (b"", "its first line is nothing"),
    "wrong version": (b"minbpe v2\n\n0\n", "its first line is 'minbpe v2'"),
    "cut short": (b"minbpe v1\n", "is cut short"),
    "bad count": (b"minbpe v1\n\nmany\n", "line 3: 'many' is not a number"),
    "missing specials": (b"minbpe v1\n\n2\n<s> 300\n", "announces 2 special tokens and holds 1"),
    "bad special": (b"minbpe v1\n\n1\n<s>\n", "line 4: expected 'special-token id'"),
    "special collides": (b"minbpe v1\n\n1\n<s> 256\n97 98\n", "has id 256, which a byte or a merge already has"),
    "future id": (b"minbpe v1\n\n0\n97 300\n", "line 4: id 300 does not exist yet"),
    "negative": (b"minbpe v1\n\n0\n-1 2\n", "expected two ids"),
    "three ids": (b"minbpe v1\n\n0\n1 2 3\n", "expected two ids"),
    "blank merge line": (b"minbpe v1\n\n0\n97 98\n\n", "line 5: expected two ids"),
    "duplicate pair": (b"minbpe v1\n\n0\n97 98\n97 98\n", "was already merged on line 4"),
    "evil pattern": (b"minbpe v1\n(?:a|aa)+$|[\\s\\S]\n0\n", "catastrophic"),
    "binary": (b"minbpe v1\n\xff\n0\n", "is not valid UTF-8"),
}


@pytest.mark.parametrize("case", list(BAD_MODELS))
def test_bad_model_files_get_one_line_errors(case):
    raw, match = BAD_MODELS[case]
    refused(minbpe_from_bytes, raw, name="up.model", match=match, error=TokenizerFileError)


def test_only_model_files_are_read_from_disk(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("minbpe v1\n\n0\n", encoding="utf-8")
    refused(load_minbpe_file, path, match="files named \\*.model", error=TokenizerFileError)
    assert isinstance(TokenizerFileError("x"), BpeError)
