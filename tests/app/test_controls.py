"""Every control a link can carry is declared once, and its widget draws from the declaration.

Each page is drawn once; every linked control that has a widget (key ``_w_<key>``) must be
on it, and unless its bounds are only an envelope the run narrows, the widget's bounds or
options are the declared ones: widening a slider without its declaration fails here,
instead of silently breaking links that set the wider values.
"""

from __future__ import annotations

import pytest
from app_helpers import new_app

from pages._shared.data.tokenizers import cached_gpt2
from pages._shared.frame.navigation import known_pages
from pages._shared.state.controls import PAGE_CONTROLS, VIEW_CONTROLS, page_fields, setting_fields

WIDGETS = ("slider", "select_slider", "number_input", "selectbox", "multiselect", "radio", "toggle", "checkbox")
WIDGETS += ("text_input", "text_area")
MEDIUM = dict(settings_prefix_cap=20_000, settings_vocab=300, settings_train_up_to=300)  # Tiny Shakespeare, quick


def widget(at, key: str):
    for kind in WIDGETS:
        for element in getattr(at, kind):
            if element.key == f"_w_{key}":
                return element
    return None


def drawn_on(page: str):
    return setting_fields() if page == "app.py" else list(page_fields(page)) + list(VIEW_CONTROLS)


@pytest.mark.parametrize("page", ["app.py", *PAGE_CONTROLS], ids=lambda page: page.split("/")[-1])
def test_every_linked_control_is_drawn_from_its_declaration(page):
    at = new_app(page, **MEDIUM)
    assert not at.exception
    for field in drawn_on(page):
        if not field.drawn or (field.key == "tokenize_special_text" and cached_gpt2() is None):
            continue
        shown = widget(at, field.key)
        assert shown is not None, f"{page}: no widget shows the linked control {field.key}"
        if field.envelope:
            continue  # the run narrows it (the vocab from the alphabet up, the sizes a run reaches)
        if field.options is not None:
            declared = {str(option) for option in field.options}
            assert len(shown.options) == len(declared), (field.key, shown.options)
            if set(shown.options) <= declared:  # drawn as themselves, not through a format function
                assert set(shown.options) == declared, (field.key, shown.options)
        elif hasattr(shown, "min"):
            assert (shown.min, shown.max) == (field.low, field.high), f"{field.key}: widget {shown.min}..{shown.max}"


def test_every_page_control_names_a_page_of_the_app():
    assert set(PAGE_CONTROLS) <= set(known_pages())
    every = [field for fields in PAGE_CONTROLS.values() for field in fields] + setting_fields() + list(VIEW_CONTROLS)
    keys, params = [field.key for field in every], [field.param for field in every]
    assert len(keys) == len(set(keys)) and len(params) == len(set(params))  # one declaration each


def test_each_declared_state_key_is_spelled_only_where_it_is_declared():
    import ast

    from app_helpers import ROOT

    from pages._shared.state import stores
    from pages._shared.state.settings import DEFAULTS

    declared = set(DEFAULTS) | {f.key for fields in PAGE_CONTROLS.values() for f in fields}
    declared |= {f.key for f in VIEW_CONTROLS}
    declared |= {value for name, value in vars(stores).items() if name.isupper() and isinstance(value, str)}
    homes = {"settings.py", "controls.py", "stores.py"}
    spelled = []
    for path in sorted((ROOT / "pages").rglob("*.py")):
        if path.name in homes:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        spelled += [
            f"{path.relative_to(ROOT)}: {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in declared and id(node) not in docstrings
        ]
    assert spelled == [], "use the declared name, not the string: " + ", ".join(spelled)
