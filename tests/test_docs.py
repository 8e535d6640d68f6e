"""The measure pages cannot drift from the code.

* each page's generated parameter block equals what the registry gives now;
* every registered family has a page, and every page is listed in docs/index.md;
* every page's Python examples run as doctests (values worked by hand on the page), and so do the
  guides' (docs/trust.md);
* every ``$ rankmeter ...`` command shown on a page runs and prints the lines shown;
* ``rankmeter measures`` (``print_measures``) lists every family with its parameters.
"""
from __future__ import annotations

import doctest
import io
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

import importlib.util
from rankmeter.measures import REGISTRY
from rankmeter.report.text import print_measures

ROOT = Path(__file__).resolve().parent.parent
PAGES_DIR = ROOT / "docs" / "measures"
_spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "tools" / "gen_docs.py")
docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs)
from rankmeter.measures import facts as _facts  # noqa: E402


PAGES = sorted(PAGES_DIR.glob("*.md"))
SECTIONS = ["## Definition", "## Parameters", "## trec_eval", "## Which library computes which variant",
            "## Worked example"]


def test_pages_exist():
    assert PAGES, f"no pages in {PAGES_DIR}"


def test_generated_blocks_match_registry():
    for path, (old, new) in docs.expected_pages(PAGES_DIR).items():
        assert old, f"{path.name}: missing page for measure module {path.stem}"
        assert old == new, f"{path.name}: parameter table is stale; run `python tools/gen_docs.py`"
    assert docs.update_pages(PAGES_DIR, check=True) == []


def test_every_registered_family_has_a_page():
    for name, family in REGISTRY.items():
        page = PAGES_DIR / f"{_facts.module_of(family)}.md"
        assert page.exists(), f"{name}: no page {page.name}"
        text = page.read_text(encoding="utf-8")
        block = text[text.index(docs.BEGIN):text.index(docs.END)]
        assert f"| `{name}` |" in block, f"{name}: not in the generated table of {page.name}"


def test_every_page_belongs_to_a_measure_module():
    modules = set(_facts.families_by_module())
    assert {p.stem for p in PAGES} == modules


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_page_has_every_section(page):
    text = page.read_text(encoding="utf-8")
    for section in SECTIONS:
        assert section in text, f"{page.name}: no section {section!r}"
    assert text.count(docs.BEGIN) == 1 and text.count(docs.END) == 1
    assert "```python\n>>> " in text, f"{page.name}: no doctested example"
    assert "```console\n$ rankmeter " in text, f"{page.name}: no rankmeter command"
    assert "](../index.md)" in text


def test_index_lists_every_page_and_measure():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for page in PAGES:
        assert f"(measures/{page.name})" in index, f"docs/index.md does not link {page.name}"
    for name in REGISTRY:
        assert f"`{name}`" in index, f"docs/index.md does not name {name}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_page_examples_run(page, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples read docs/measures/data/... from the repository root
    result = doctest.testfile(str(page), module_relative=False, report=True,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{page.name}: no examples found"
    assert result.failed == 0, f"{page.name}: {result.failed} example(s) failed (see the output above)"


#: pages that are not about one measure module but are doctested all the same
GUIDES = [ROOT / "docs" / "trust.md", ROOT / "docs" / "leaderboard.md"]


@pytest.mark.parametrize("page", GUIDES, ids=lambda p: p.stem)
def test_guide_examples_run_and_are_linked(page, monkeypatch):
    monkeypatch.chdir(ROOT)  # the guides read examples/ and tests/golden/ from the repository root
    result = doctest.testfile(str(page), module_relative=False, report=True,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{page.name}: no examples found"
    assert result.failed == 0, f"{page.name}: {result.failed} example(s) failed (see the output above)"
    assert f"]({page.name})" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")


def _commands(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for each ``$ rankmeter`` line of the console blocks."""
    out = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            elif out and line.strip() and line.strip() != "...":
                out[-1][1].append(line)
    return out


def _norm(line: str) -> str:
    return " ".join(line.split())


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_page_commands_print_what_the_page_shows(page, cli):
    commands = _commands(page.read_text(encoding="utf-8"))
    assert commands
    for command, expected in commands:
        argv = shlex.split(command)
        assert argv[0] == "rankmeter"
        captured = cli(*argv[1:], cwd=ROOT)  # in process: streams, warning filters and import finders restored
        status = captured.code
        assert status == 0, f"{page.name}: `{command}` exited {status}: {captured.err}"
        printed = {_norm(line) for line in captured.out.splitlines()}
        for line in expected:
            assert _norm(line) in printed, f"{page.name}: `{command}` did not print {line!r}:\n{captured.out}"


# ------------------------------------------------------------------ the generator on its own
def test_update_rewrites_a_stale_block_and_check_reports_it(tmp_path):
    for page in PAGES:
        shutil.copy(page, tmp_path / page.name)
    stale = tmp_path / "ap.md"
    text = stale.read_text(encoding="utf-8")
    start, end = text.index(docs.BEGIN), text.index(docs.END) + len(docs.END)
    stale.write_text(text[:start] + docs.BEGIN + "\nold table\n" + docs.END + text[end:], encoding="utf-8")

    assert docs.update_pages(tmp_path, check=True) == [stale]
    assert docs.main(["--check", "--docs", str(tmp_path)]) == 1
    assert "old table" in stale.read_text(encoding="utf-8")  # --check leaves the page alone

    assert docs.update_pages(tmp_path) == [stale]
    assert stale.read_text(encoding="utf-8") == text  # the prose around the block is kept as it was
    assert docs.main(["--check", "--docs", str(tmp_path)]) == 0


def test_missing_page_or_markers_are_errors(tmp_path):
    for page in PAGES:
        shutil.copy(page, tmp_path / page.name)
    (tmp_path / "rr.md").unlink()
    with pytest.raises(FileNotFoundError, match="rr.md"):
        docs.update_pages(tmp_path, check=True)
    assert docs.main(["--check", "--docs", str(tmp_path)]) == 2

    shutil.copy(PAGES_DIR / "rr.md", tmp_path / "rr.md")
    (tmp_path / "ap.md").write_text("# AP\n\nno markers\n", encoding="utf-8")
    with pytest.raises(ValueError, match="ap.md"):
        docs.update_pages(tmp_path)


def test_block_states_parameters_defaults_and_trec_names():
    block = docs.render_block("dcg")
    assert block.startswith(docs.BEGIN) and block.endswith(docs.END)
    # nDCG's three choices with trec_eval's defaults, and the values each allows
    assert "| `gain` | `linear` | one of linear, exp or a map {grade: gain} |" in block
    assert "| `discount` | `log2` | one of log2, jk |" in block
    assert "| `ideal` | `qrels` | one of qrels, run, topk |" in block
    assert "`ndcg_cut_k = nDCG@k (k: 5, 10, 15, 20, 30, 100, 200, 500, 1000)`" in block
    ap = docs.render_block("ap")
    assert "`map = AP`" in ap and "`gm_map = GMAP`" in ap and "`set_map = SetAP`" in ap
    assert "| `denom` | `R` | one of R, min, hits |" in ap
    assert "`rbp = RBP(p=0.9, gain=trec_eval)`" in docs.render_block("rbp")
    assert "`Rprec_mult_x = RprecMult(mult=x) (x: 0.2, 0.4" in docs.render_block("precision")
    assert "| `IPrec` | required @r" in docs.render_block("iprec")
    assert "| `NumRet` | none | sum |" in docs.render_block("counts")


# ------------------------------------------------------------------ rankmeter measures
def _measures_text() -> str:
    buf = io.StringIO()
    print_measures(buf)
    return buf.getvalue()


def test_print_measures_lists_every_family_with_its_parameters():
    text = _measures_text()
    for name, family in REGISTRY.items():
        own = [p for p in family.params]
        head = re.search(rf"^{re.escape(name)}(\(|\[@|@|$)", text, flags=re.M)
        assert head, f"{name} is not listed"
        for p in own:
            assert re.search(rf"^  {re.escape(p.name)}=", text, flags=re.M), f"{name}: {p.name} not listed"
    assert "nDCG(gain=linear, discount=log2, ideal=qrels, log_base=2, empty_target_action=neg)[@k]" in text
    assert "  ideal=qrels  (one of qrels, run, topk)" in text
    assert "IPrec@r" in text
    assert "  rel=unset  (a relevance threshold: a finite number (grades >= rel are relevant))" in text
    assert "  judged_only=false  (true or false)" in text
    assert "trec_eval: map = AP; map_cut_k = AP@k (k: 5, 10, 15, 20, 30, 100, 200, 500, 1000)" in text
    assert "  p=0.8  (a number in [0, 1))" in text


def test_print_measures_wraps_to_the_width():
    buf = io.StringIO()
    print_measures(buf, width=70)
    assert max(len(line) for line in buf.getvalue().splitlines()) <= 70


def test_print_measures_json():
    buf = io.StringIO()
    print_measures(buf, format="json")
    data = json.loads(buf.getvalue())
    assert [p["name"] for p in data["common_params"]] == ["rel", "judged_only"]
    by_name = {m["name"]: m for m in data["measures"]}
    assert set(by_name) == set(REGISTRY)
    ndcg = by_name["nDCG"]
    assert [(p["name"], p["default"]) for p in ndcg["params"]] == [
        ("gain", "linear"), ("discount", "log2"), ("ideal", "qrels"), ("log_base", 2.0),
        ("empty_target_action", "neg"), ("rel", None), ("judged_only", False)]
    assert ndcg["cutoff"] == "optional" and ndcg["module"] == "dcg"
    assert "ndcg = nDCG" in ndcg["trec_eval"]
    assert by_name["GMAP"]["aggregation"] == "gmean" and by_name["NumRet"]["aggregation"] == "sum"
    assert by_name["IPrecAvg"]["params"][0]["default"] == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert by_name["RelString"]["value_type"] == "text" and by_name["NumRet"]["value_type"] == "count"
    assert by_name["ERR"]["needs"] == ["qrels_max_grade"] and by_name["AP"]["needs"] == []


def test_print_measures_rejects_an_unknown_format():
    with pytest.raises(ValueError, match="csv"):
        print_measures(io.StringIO(), format="csv")


#: guide pages whose Python examples must run as written
GUIDES = [ROOT / "docs" / "ties.md"]


@pytest.mark.parametrize("page", GUIDES, ids=lambda p: p.stem)
def test_guide_examples_run(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(str(page), module_relative=False, report=True,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{page.name}: no examples found"
    assert result.failed == 0, f"{page.name}: {result.failed} example(s) failed (see the output above)"
