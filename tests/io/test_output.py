"""What rankmeter writes: tables that keep every digit, files never over an input nor half written,
one-line errors and an interrupt that ends cleanly, text from the data escaped."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rankmeter
from rankmeter.io.output import OutputError, check_output, output_file, printable
from rankmeter.core.order import natural_key
from rankmeter.report.text import render_table
from cli_runner import run_cli_subprocess  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

EXAMPLES = Path(__file__).resolve().parents[1].parent / "examples"
QRELS, RUN1, RUN2 = EXAMPLES / "qrels.txt", EXAMPLES / "run.txt", EXAMPLES / "run2.txt"


cli = run_cli_subprocess  # terminal widths, environments and exit paths: the shared runner's child process


def test_wide_tables_split_into_blocks_and_keep_every_digit():
    header = ["run", "query"] + [f"measure_{i}@10" for i in range(13)]
    rows = [["bm25", "all"] + [0.123456789 * (i + 1) for i in range(13)]]
    for width in (80, 120):
        text = render_table(header, rows, decimals=4, width=width)
        assert max(len(line) for line in text.splitlines()) <= width
        for i in range(13):
            assert f"{0.123456789 * (i + 1):.4f}" in text
            assert f"measure_{i}@10" in text
    assert render_table(header, rows, width=None).count("\n") == 2  # no terminal: one block


@pytest.mark.parametrize("columns", [80, 120])
def test_terminal_tables_keep_every_digit(columns):
    """Through a real pseudo-terminal of 80 and 120 columns, with rich installed or not."""
    import pty
    measures = ["AP", "nDCG@10", "P@5", "P@10", "R@100", "RR", "Bpref", "ERR@20", "nDCG@20", "P@20",
                "R@1000", "IPrec@0.5", "Success@5"]
    argv = [sys.executable, "-m", "rankmeter", "eval", str(QRELS), str(RUN1)] + [a for m in measures for a in ("-m", m)]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["COLUMNS"] = str(columns)
        os.environ["LINES"] = "50"
        os.execv(sys.executable, argv)
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode()
    want = rankmeter.evaluate(QRELS, RUN1, measures)
    assert max(len(line) for line in text.splitlines()) <= columns
    for name in measures:
        assert f"{want[name]:.4f}" in text, (name, text)


def test_natural_query_order():
    assert sorted(["q10", "q2", "q1", "a", "10", "9"], key=natural_key) == ["9", "10", "a", "q1", "q2", "q10"]
    out = cli("eval", QRELS, RUN1, "-m", "AP", "-q")
    queries = [line.split()[1] for line in out.stdout.splitlines()[1:]]
    assert queries[:-1] == sorted(queries[:-1], key=natural_key) and queries[-1] == "all"


def test_output_checks(tmp_path):
    (tmp_path / "qrels.txt").write_text("q 0 d 1\n")
    with pytest.raises(OutputError, match="one of the inputs"):
        check_output(tmp_path / "qrels.txt", inputs=[tmp_path / "qrels.txt"])
    with pytest.raises(OutputError, match="is a folder"):
        check_output(tmp_path, inputs=[])
    with pytest.raises(OutputError, match="does not exist"):
        check_output(tmp_path / "missing" / "x.html")
    with pytest.raises(OutputError, match=r"must end in \.html"):
        check_output(tmp_path / "x.pdf", suffixes=(".html",))
    if os.path.exists("/dev/full"):
        with pytest.raises(OutputError, match="cannot be written"):
            with output_file("/dev/full") as fh:
                fh.write("x" * 100000)


def test_no_half_written_file_and_no_change_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("before")
    with pytest.raises(RuntimeError):
        with output_file(target) as fh:
            fh.write("partial")
            raise RuntimeError("interrupted")
    assert target.read_text() == "before" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    with output_file(target) as fh:
        fh.write("after")
    assert target.read_text() == "after" and oct(target.stat().st_mode & 0o777) != "0o600"


def test_report_never_overwrites_an_input_and_refuses_pdf(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS.read_bytes())
    before = qrels.read_bytes()
    for output, message in [(qrels, "one of the inputs"), (tmp_path / "x.pdf", "must end in .html"),
                            (tmp_path / "nope" / "r.html", "does not exist"), (tmp_path, "is a folder")]:
        out = cli("report", qrels, RUN1, RUN2, "-m", "AP", "-o", output)
        assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.count("\n") == 1
    assert qrels.read_bytes() == before


def test_stdout_to_a_full_disk_is_one_line():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "rankmeter", "eval", str(QRELS), str(RUN1), "-m", "AP", "-q"],
                              stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2 and "cannot write the output" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("delay", [0.2, 0.5, 1.0])  # from the first line of Python code on
def test_ctrl_c_at_any_moment_is_one_line_and_130(tmp_path, delay):
    # "go" once Python itself is up: on a loaded machine a fixed delay from spawning could land in the
    # interpreter's own start-up (site), which no program can handle
    script = [sys.executable, "-c", "import sys; print('go', flush=True); import _rankmeter_cli; _rankmeter_cli.main()",
              "report", str(QRELS),
              str(RUN1), str(RUN2), "-m", "AP", "-m", "nDCG@10", "-o", str(tmp_path / "r.html"),
              "--test", "randomization"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1].parent),
                                                       os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen(script, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline() == "go\n"
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    if proc.returncode == 0:  # finished before the signal: the report is whole
        assert (tmp_path / "r.html").read_text().rstrip().endswith("</html>")
        return
    assert proc.returncode == 130, err
    assert err == "rankmeter: interrupted\n"
    assert not any(p.suffix == ".part" for p in tmp_path.iterdir())
    assert not (tmp_path / "r.html").exists()


def test_control_characters_in_ids_and_tags_are_escaped(tmp_path):
    import io
    from rankmeter.report.text import print_results

    run = tmp_path / "run.txt"
    run.write_bytes(b"1000 Q0 d1 1 2.0 evil\x1b]0;pwned\x07\n")
    out = cli("eval", QRELS, run, "-m", "AP", "-q")  # the reader refuses control bytes in files outright
    assert out.returncode == 2 and "\x1b" not in out.stderr and "Traceback" not in out.stderr
    r = rankmeter.evaluate({"q\x1b[2J": {"a": 1}}, {"q\x1b[2J": {"a": 1.0}}, "AP")  # dicts may hold anything
    buf = io.StringIO()  # a run named with a right-to-left override
    print_results([r], ["run\u202e"], per_query=True, out=buf)
    assert "\x1b" not in buf.getvalue() and "q\\x1b[2J" in buf.getvalue() and "\\u202e" in buf.getvalue()
    assert printable("a\u202eb") == "a\\u202eb"


def test_version_unknown_flags_and_cli_words_in_warnings(tmp_path):
    out = cli("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"rankmeter {rankmeter.__version__}"
    out = cli("eval", QRELS, RUN1, "-m", "AP", "--bogus")
    assert out.returncode == 2 and out.stderr == "rankmeter: error: rankmeter eval: unrecognized arguments: --bogus\n"
    run = tmp_path / "run.txt"
    run.write_text("1000 Q0 d1 1 2.0 t\n")
    out = cli("eval", QRELS, run, "-m", "AP")
    assert "(--queries qrels scores them as 0)" in out.stderr and "queries='qrels'" not in out.stderr


def test_notebook_display_escapes_and_keeps_digits():
    r = rankmeter.evaluate({"<q>": {"a": 1}}, {"<q>": {"a": 1.0, "b": 0.5}}, ["AP", "P@2"])
    page = r._repr_html_()
    assert "&lt;q&gt;" in page and "<q>" not in page and "0.5000" in page
    ex = rankmeter.explain({"<q>": {"a": 1}}, {"<q>": {"a": 1.0}}, "AP", "<q>")
    assert "&lt;q&gt;" in ex._repr_html_() and "<pre>" in ex._repr_html_()
    c = rankmeter.compare({"q": {"a": 1}, "p": {"b": 1}}, {"x": {"q": ["a"], "p": ["b"]},
                                                           "y": {"q": ["b"], "p": ["a"]}}, "AP", test="randomization",
                          permutations=50)
    assert "<table>" in c._repr_html_() and "randomization" in c._repr_html_()


def test_json_has_one_shape(tmp_path):
    one = json.loads(cli("eval", QRELS, RUN1, "-m", "AP", "--format", "json").stdout)
    two = json.loads(cli("eval", QRELS, RUN1, RUN2, "-m", "AP", "--format", "json").stdout)
    assert set(one) == set(two) == {"measures", "options", "runs"}
    assert len(one["runs"]) == 1 and len(two["runs"]) == 2
