"""One list of the app's pages, in one order, for the home page, the sidebar and lesson files."""

from __future__ import annotations

import pages._shared.frame.navigation as navigation


def test_pages_sort_by_number_so_a_tenth_page_comes_last(tmp_path, monkeypatch):
    for name in ("1_First.py", "10_Tenth_page.py", "9_Ninth.py", "notes.txt"):
        (tmp_path / name).write_text("", encoding="utf-8")
    monkeypatch.setattr(navigation, "PAGES_DIR", tmp_path)
    shown = [(page.path, page.label) for page in navigation.app_pages()]
    assert shown == [
        ("app.py", "Home"),
        ("pages/1_First.py", "First"),
        ("pages/9_Ninth.py", "Ninth"),
        ("pages/10_Tenth_page.py", "Tenth page"),
    ]
    assert navigation.known_pages() == [path for path, _label in shown]  # what lesson files may name


def test_the_app_lists_every_page_file():
    listed = navigation.known_pages()
    files = sorted(f"pages/{p.name}" for p in navigation.PAGES_DIR.glob("[0-9]*_*.py"))
    assert listed[0] == "app.py" and sorted(listed[1:]) == files
