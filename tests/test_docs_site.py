"""The documentation site builds strictly, with every example on it run (mkdocs.yml, tools/docs_hooks.py).

One strict build per test module (``mkdocs build --strict`` in a child process, into a temporary
directory): it fails on a broken link, a missing API reference or a failing example. The built site
is then checked for what must be on it. The hook's example runner is also tested on small pages:
a failing example must fail the build, a shown output must be the printed one.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import mkdocs  # noqa: F401 - the docs tools (CI installs them); imported plainly so a missing one fails
import pytest
import yaml
from mkdocs.exceptions import PluginError

import rankmeter

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "tools" / "docs_hooks.py")
hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooks)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    return out, done.stderr


def _page(site_dir: Path, uri: str) -> str:
    stem = uri[:-len(".md")]
    path = site_dir / (stem[:-len("index")] if stem == "index" or stem.endswith("/index") else stem + "/") / "index.html"
    assert path.exists(), f"{uri} was not built ({path})"
    return path.read_text(encoding="utf-8")


def _nav_uris(nav) -> list[str]:
    out = []
    for item in nav:
        (_, value), = item.items()
        out += _nav_uris(value) if isinstance(value, list) else [value]
    return out


#: Put first on sys.path of a child process: torch and JAX then fail to import, as where they are not installed
_WITHOUT_TORCH_OR_JAX = """
import sys


class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "torchmetrics", "jax", "jaxlib"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
"""


def _readme_docs_commands() -> list[str]:
    """The README's lines that build the site (its Documentation section's sh block)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Documentation\n"):]
    block = section[section.index("```sh\n") + len("```sh\n"):]
    block = block[:block.index("```")]
    return [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]


def test_the_readme_builds_the_site_without_torch_or_jax(tmp_path):
    """The README's build (``pip install -e ".[docs,test]"`` installs neither torch nor JAX) passes strictly
    where they are missing: the pages and examples that need them say so and are not run."""
    commands = _readme_docs_commands()
    assert commands[0] == 'pip install -e ".[docs,test]"' and "mkdocs build --strict" in commands
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extras_text = pyproject[pyproject.index("[project.optional-dependencies]"):]
    docs_and_test = re.search(r"^docs = \[(.*?)\]", extras_text, re.M | re.S).group(1) + \
        re.search(r"^test = \[(.*?)^\]", extras_text, re.M | re.S).group(1)
    assert not re.search(r'"(torch|torchmetrics|jax|jaxlib)\b', docs_and_test)  # so the build must do without
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(_WITHOUT_TORCH_OR_JAX, encoding="utf-8")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join([str(blocker), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    probe = subprocess.run([sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True)
    assert probe.returncode == 1 and "No module named 'torch'" in probe.stderr
    argv = "mkdocs build --strict".split()
    out = tmp_path / "site"    # the README's command, into a scratch folder instead of the checkout's site/
    done = subprocess.run([sys.executable, "-m", *argv, "-d", str(out)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    log = done.stderr
    assert "docs/training.md: every example (needs torch, torchmetrics, jax, not installed)" in log
    assert "docs/commands/diff.md: an example (needs torch, not installed)" in log
    assert re.search(r"docs/why-numbers-differ\.md:\d+: an example \(needs torch, not installed\)", log)
    for uri in ("training.md", "commands/diff.md", "why-numbers-differ.md"):
        assert "Not run in this build" in _page(out, uri), uri
    ran = re.search(r"docs-exec: (\d+) examples ran", log)
    assert ran and int(ran.group(1)) >= 90, log[-3000:]   # everything else ran
    assert "rankmeter diff examples/qrels.txt examples/run.txt -m nDCG@10 -m RR@10 --as pytrec_eval,ranx,sklearn" \
        in _page(out, "commands/diff.md")


def test_every_nav_page_is_built(site):
    site_dir, _ = site
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = hooks.expand_nav(config["nav"], ROOT / "docs")
    uris = [u.split("#")[0] for u in _nav_uris(nav)]
    assert len(uris) >= 40
    for uri in uris:
        _page(site_dir, uri)
    # every page in docs/ is in the nav (a page outside it would be unreachable)
    on_disk = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert on_disk <= set(uris), f"pages missing from the nav: {sorted(on_disk - set(uris))}"


def test_examples_ran_while_building(site):
    _, log = site
    ran = re.search(r"docs-exec: (\d+) examples ran", log)
    assert ran and int(ran.group(1)) >= 90, log[-3000:]
    # a page or block whose 'needs' are missing is not run; with the test dependencies installed every one runs
    assert "(needs " not in log, log[-3000:]


def test_one_page_per_command_with_its_help_and_real_output(site):
    site_dir, _ = site
    status, out, _ = hooks.run_rankmeter(["--help"])
    assert status == 0
    commands = [name for name, _ in hooks.command_names()]
    assert {"eval", "compare", "trec_eval", "meta", "run"} <= set(commands)
    # every command shows an example run (a new command's page shows only its help until it has one)
    assert set(commands) == set(hooks.COMMAND_EXAMPLES), "add the command to COMMAND_EXAMPLES in tools/docs_hooks.py"
    for name in commands:
        html = _page(site_dir, f"commands/{name}.md")
        assert f"rankmeter {name}" in html
        assert "usage:" in html or name == "trec_eval"
    # the eval example's table, as the command printed it while the site was built
    eval_page = _page(site_dir, "commands/eval.md")
    assert "0.1900" in eval_page and "0.2429" in eval_page and "neural" in eval_page
    assert "rankmeter meta swap-rate" in _page(site_dir, "commands/meta.md")  # meta's kinds on its page


def test_api_reference_documents_every_public_name(site):
    site_dir, _ = site
    html = _page(site_dir, "api.md")
    for name in rankmeter.__all__:
        if name == "__version__":
            continue
        obj = getattr(rankmeter, name)
        target = obj.__name__ if isinstance(obj, type(rankmeter)) else f"{obj.__module__}.{name}"
        assert f'id="{target}"' in html, f"{target} has no entry on the API page"
    assert ":func:" not in html and ":class:" not in html  # Sphinx roles are shown as code
    # the evaluation options' entries, filled from their declarations as at import (rankmeter.core.keywords)
    assert "evaluation_options" not in html and html.count("positive_scores_only") >= 5
    assert 'id="rankmeter.compat.pytrec_eval.RelevanceEvaluator"' in html


def test_benchmarks_page_holds_the_readme_tables(site):
    site_dir, _ = site
    html = _page(site_dir, "benchmarks.md")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Benchmark\n"):]
    first_row = re.search(r"^\| rankmeter \| ([\d.]+) \| ([\d.]+) \|", section, flags=re.M)
    assert first_row, "README's benchmark table has no rankmeter row"
    assert f"<td>rankmeter</td>\n<td style=\"text-align: right;\">{first_row.group(1)}</td>" in html


def test_build_is_strict_and_validates_links():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["strict"] is True
    assert {config["validation"][k] for k in ("unrecognized_links", "anchors", "omitted_files")} == {"warn"}


# ------------------------------------------------------------------ the example runner on small pages
@pytest.fixture()
def runner_state():
    hooks._state.update(workdir=None, ran=0, skipped=[], not_run=[])
    yield hooks._state
    if hooks._state.get("workdir") is not None:
        hooks.shutil.rmtree(hooks._state["workdir"], ignore_errors=True)
        hooks._state["workdir"] = None


def test_a_failing_python_example_fails_the_build(runner_state):
    page = "# t\n\n```python\n>>> 1 + 1\n3\n```\n"
    with pytest.raises(PluginError, match=r"docs/t\.md:3: python block failed"):
        hooks.execute_page(page, "t.md")
    with pytest.raises(PluginError, match="ZeroDivisionError"):
        hooks.execute_page("```python\nx = 1 / 0\n```\n", "t.md")


def test_blocks_of_a_page_share_names_and_run_from_the_checkout(runner_state):
    page = ("```python\n>>> import rankmeter\n>>> r = rankmeter.evaluate('examples/qrels.txt', 'examples/run.txt', 'AP')\n```\n\n"
            "```python\nassert round(r['AP'], 4) == 0.19\n```\n")
    assert hooks.execute_page(page, "t.md") == page
    assert runner_state["ran"] == 2


def test_a_console_command_must_print_what_the_page_shows(runner_state):
    good = "```console\n$ rankmeter trec_eval -m map examples/qrels.txt examples/run.txt\nmap all 0.1900\n```\n"
    assert hooks.execute_page(good, "t.md") == good
    bad = good.replace("0.1900", "0.2000")
    with pytest.raises(PluginError, match=r"did not print 1 line\(s\) the page shows:\n  'map all 0.2000'"):
        hooks.execute_page(bad, "t.md")
    failing = "```console\n$ rankmeter eval examples/qrels.txt no-such.run -m AP\n```\n"
    with pytest.raises(PluginError, match="exited 2"):
        hooks.execute_page(failing, "t.md")


def test_a_console_command_without_output_gets_its_real_output(runner_state):
    page = "```console\n$ rankmeter trec_eval -m map examples/qrels.txt examples/run.txt\n```\n"
    built = hooks.execute_page(page, "t.md")
    assert re.search(r"^map\s+all\s+0\.1900$", built, flags=re.M), built


def test_unknown_languages_are_refused_and_skips_need_a_reason(runner_state):
    with pytest.raises(PluginError, match="fence language ''"):
        hooks.execute_page("```\nrankmeter eval\n```\n", "t.md")
    with pytest.raises(PluginError, match="only rankmeter and trec_eval commands"):
        hooks.execute_page("```console\n$ ls\n```\n", "t.md")
    needs = ("# T\n\n<!-- docs-exec: needs no_such_module_here json -->\n\nA page's marker (not just above a fence)."
             "\n\n```python\nraise SystemExit(1)\n```\n")
    shown = hooks.execute_page(needs, "n.md")   # not run: it would fail the build
    assert "Not run in this build" in shown and "no_such_module_here" in shown and "json" not in shown
    assert runner_state["not_run"][-1] == "docs/n.md: every example (needs no_such_module_here, not installed)"
    present = "<!-- docs-exec: needs json -->\n```python\nraise SystemExit(1)\n```\n"
    with pytest.raises(PluginError):             # every module there: the examples run (and this one fails)
        hooks.execute_page(present, "p.md")
    skipped = "<!-- docs-exec: skip (needs Java) -->\n```python\nraise SystemExit(1)\n```\n"
    assert hooks.execute_page(skipped, "t.md") == skipped
    assert runner_state["skipped"] == ["docs/t.md:2: needs Java"]
    assert hooks.execute_page("```text\nanything\n```\n", "t.md")  # shown output is not run


def test_a_block_that_needs_a_missing_package_is_not_run_and_says_so(runner_state):
    page = ("# T\n\n<!-- docs-exec: needs no_such_module_here -->\n```python\nraise SystemExit(1)\n```\n\n"
            "```python\n>>> 1 + 1\n2\n```\n")
    shown = hooks.execute_page(page, "b.md")   # the first block would fail; the second runs
    assert "Not run in this build" in shown and "This example needs no_such_module_here" in shown
    assert runner_state["ran"] == 1
    assert runner_state["not_run"] == ["docs/b.md:4: an example (needs no_such_module_here, not installed)"]
    present = "<!-- docs-exec: needs json -->\n```python\nraise SystemExit(1)\n```\n"
    with pytest.raises(PluginError):             # the module is there: the block runs (and fails)
        hooks.execute_page(present, "p.md")


def test_a_page_may_run_in_a_folder_of_the_checkout_without_writing_into_it(runner_state):
    folder = "docs/measures/data"
    page = (f"<!-- docs-exec: cwd {folder} -->\n```console\n$ rankmeter eval s1.qrels s1.run -m P@2\n```\n\n"
            "```console\n$ rankmeter run cut s1.run -k 1 -o cut.run\n```\n")
    before = sorted(p.name for p in (ROOT / folder).iterdir())
    built = hooks.execute_page(page, "t.md")
    assert "P@2" in built
    assert sorted(p.name for p in (ROOT / folder).iterdir()) == before  # cut.run went to the scratch folder
    with pytest.raises(PluginError, match="not a folder of the checkout"):
        hooks.execute_page("<!-- docs-exec: cwd ../.. -->\n", "t.md")
