"""docs/llm-judges.md cannot drift: its Python examples run as doctests and its commands print what it shows.

Both run in a copy of tests/fixtures/llm_judges/example/. The commands go through the CLI modules'
registered commands, in process (the shared cli fixture). Section 7's loop runs as one: its blocks in page
order, the stand-in model server its first block starts included, so the label step runs too.
"""
from __future__ import annotations

import doctest
import re
import shlex
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1].parent
PAGE = ROOT / "docs" / "llm-judges.md"
EXAMPLE = ROOT / "tests" / "fixtures" / "llm_judges" / "example"


LOOP = "## 7. The whole loop"


def _blocks() -> list[tuple[str, str]]:
    """The console examples of sections 1-6, each of which runs on its own."""
    text = PAGE.read_text(encoding="utf-8").split(LOOP)[0]
    found = re.findall(r"```console\n\$ (rankmeter [^\n]*)\n(.*?)```", text, flags=re.DOTALL)
    return [(command, output) for command, output in found]


@pytest.fixture
def example(tmp_path, monkeypatch):
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE, folder)
    monkeypatch.chdir(folder)
    return folder


def test_page_shows_every_command():
    commands = [c.split()[1:3] for c, _ in _blocks()]
    assert ["agree", "human.qrels"] in commands and ["meta", "leaderboards"] in commands
    assert {"judges", "nuggets"} <= {c[0] for c in commands}
    assert len(commands) == 7


@pytest.mark.parametrize("index", range(7))
def test_page_commands_print_what_the_page_shows(index, example, cli):
    command, shown = _blocks()[index]
    result = cli(*shlex.split(command)[1:], cwd=example)
    assert result.returncode == 0, result.stderr
    assert result.stdout == shown, command


def test_page_python_examples_run(example):
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    parser = doctest.DocTestParser()
    test = parser.get_doctest("\n".join(blocks), {}, PAGE.name, str(PAGE), 0)
    assert len(test.examples) >= 12
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0


def test_the_whole_loop_runs_in_order(example, cli, monkeypatch):
    """Section 7: every block in page order (python in one namespace, each command's shown lines printed),
    against the stand-in server its first block starts; the cache's rerun makes no call."""
    section = PAGE.read_text(encoding="utf-8").split(LOOP)[1].split("\n## ")[0]
    blocks = re.findall(r"```(python|console)\n(.*?)```", section, flags=re.DOTALL)
    assert [kind for kind, _ in blocks].count("console") == 8
    monkeypatch.setenv("OPENAI_BASE_URL", "unset")     # restored afterwards: the page sets it
    namespace: dict = {}
    try:
        for kind, body in blocks:
            if kind == "python":
                exec(compile(body, str(PAGE), "exec"), namespace)
                continue
            command, *shown = body.rstrip("\n").split("\n")
            result = cli(*shlex.split(command[2:])[1:], cwd=example)
            assert result.returncode == 0, (command, result.stderr)
            printed = {" ".join(line.split()) for line in result.stdout.splitlines()}
            missing = [line for line in shown if " ".join(line.split()) not in printed]
            assert not missing, (command, missing, result.stdout)
        server = namespace["server"]
        assert len(server.requests) == 495 and len(server.answered()) == 495   # the rerun asked nothing
    finally:
        if "server" in namespace:
            namespace["server"].close()
