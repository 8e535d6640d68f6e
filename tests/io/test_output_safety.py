"""Output safety (issue 32, deliverables 2 and 3): nothing cut short reported as success, nothing but a
regular file ever replaced, no temporary file left by a signal, standard error never in the results.

* every command of the CLI registry (each kind of meta/judges/run, each --format it offers) with standard
  output on /dev/full and on a file under a file-size limit (``ulimit -f``): exit 2 and one line, never
  exit 0 with the results cut short; every command with ``-o`` the same with ``-o /dev/full`` and ``-o``
  under the limit, leaving no output and no ``.part`` file;
* ``-o /dev/stdout`` (and /dev/fd/1, /proc/self/fd/1) writes into what standard output is, leaving the
  symlink a symlink; ``-o`` a device, a FIFO (with and without a reader) or a symlink writes through it;
* SIGTERM, SIGHUP and SIGINT while the output is being written leave neither output nor ``.part``;
* with standard error closed or full, standard output holds the results alone and the exit status is
  the command's;
* the TREC run writer writes ids holding a quote and refuses, in one line, ids it cannot hold.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import stat
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cli_runner import run_cli_in_process

ROOT = Path(__file__).resolve().parents[1].parent
QRELS = b"q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d4 0\nq3 0 d5 1\nq3 0 d6 2\n"
QRELS_B = b"q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d1 1\nq2 0 d4 1\nq3 0 d5 0\nq3 0 d6 2\n"
RUNS = [  # scores that are not ranks (1, 2, 3 ... per query would draw a warning on stderr)
    b"q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq1 Q0 d3 3 0.5 a\nq2 Q0 d4 1 2.0 a\nq2 Q0 d1 2 1.0 a\nq3 Q0 d6 1 1.0 a\n",
    b"q1 Q0 d3 1 3.0 b\nq1 Q0 d1 2 2.0 b\nq2 Q0 d1 1 2.0 b\nq2 Q0 d4 2 1.0 b\nq3 Q0 d5 1 2.0 b\nq3 Q0 d6 2 1.0 b\n",
    b"q1 Q0 d2 1 3.0 c\nq1 Q0 d9 2 2.0 c\nq2 Q0 d1 1 5.0 c\nq3 Q0 d6 1 1.0 c\nq3 Q0 d5 2 0.5 c\n",
]
OTHER_QUERIES = b"q4 Q0 d1 1 2.0 d\nq4 Q0 d2 2 1.0 d\nq5 Q0 d3 1 1.0 d\n"
#: LLM judgments of every query (q1-q5) for judges estimate/allocate, whose human sample is QRELS (q1-q3)
LLM = QRELS_B + b"q4 0 d1 1\nq4 0 d2 0\nq5 0 d3 1\nq5 0 d9 1\n"
MORE = b"q4 Q0 d1 1 2.0 {}\nq4 Q0 d2 2 1.0 {}\nq5 Q0 d3 1 1.0 {}\nq5 Q0 d9 2 0.5 {}\n"
TRAIN = b"user,item\nu1,i1\nu1,i2\nu2,i2\nu2,i3\nu3,i1\n"
RECS = b"user,item,score\nu1,i3,0.9\nu1,i4,0.5\nu2,i1,0.8\nu2,i4,0.1\nu3,i2,0.7\n"
RECS_B = b"user,item,score\nu1,i1,0.9\nu1,i3,0.5\nu2,i4,0.8\nu2,i2,0.1\nu3,i3,0.7\n"
#: per-collection scores of three systems on three collections (rankmeter leaderboard)
BOARD = b"system,collection,measure,value\na,x,AP,0.5\nb,x,AP,0.4\nc,x,AP,0.3\na,y,AP,0.6\nb,y,AP,0.5\nc,y,AP,0.2\n" \
        b"a,z,AP,0.4\nb,z,AP,0.45\nc,z,AP,0.1\n"
NUGGETS = (b'{"qid": "q1", "nuggets": [{"text": "a", "importance": "vital", "assignment": "support"},'
           b' {"text": "b", "importance": "okay", "assignment": "not_support"}]}\n')

#: one valid command line per command of the registry (each kind of meta, judges and run); {O}: the output
COMMANDS = {
    "eval": "eval {Q} {R1} {R2} -m AP -m nDCG@5 -q",
    "trec_eval": "trec_eval -q {Q} {R1}",
    "explain": "explain {Q} {R1} -m nDCG@5 --query q1",
    "compare": "compare {Q} {R1} {R2} {R3} -m AP --permutations 200 --seed 1",
    "measures": "measures nDCG",
    "plot": "plot {Q} {R1} {R2} --kind diff -m AP -o {O}.svg",
    "report": "report {Q} {R1} {R2} -m AP --permutations 200 -o {O}.html",
    "check": "check {Q} {R1} {R2}",
    "judged": "judged {Q} {R1} {R2}",
    "ties": "ties {Q} {R1} -m AP",
    "fuse": "fuse {R1} {R2} --method rrf -o {O}",
    "pool": "pool {R1} {R2} --depth 2 -o {O}",
    "agree": "agree {Q} {Q2}",
    "judges aggregate": "judges aggregate {Q} -o {O}",
    "judges mix": "judges mix {Q} {Q2} -o {O}",
    "judges impact": "judges impact {Q} {Q2} {R1} {R2} -m AP --permutations 200",
    "nuggets": "nuggets {N}",
    "run cut": "run cut {R1} --k 1 -o {O}",
    "run rerank": "run rerank {R1} -o {O}",
    "run renumber": "run renumber {R1} -o {O}",
    "run filter": "run filter {R1} --keep q1 -o {O}",
    "run tag": "run tag {R1} --tag x -o {O}",
    "run merge": "run merge {R1} {R4} -o {O}",
    "run sample": "run sample {R1} -n 2 --seed 3 -o {O}",
    "run convert": "run convert {R1} --to jsonl -o {O}.jsonl",
    "beyond": "beyond {T} {P} {P2} --user user --item item",
    "meta correlate": "meta correlate {Q} {R1} {R2} {R3} -m AP -m nDCG",
    "meta discriminative-power": "meta discriminative-power {Q} {R1} {R2} {R3} -m AP --permutations 100",
    "meta swap-rate": "meta swap-rate {Q} {R1} {R2} {R3} -m AP --trials 5 --seed 2",
    "meta topic-set-size": "meta topic-set-size --min-diff 0.1 --variance 0.05",
    "meta zscores": "meta zscores {Q} {R1} {R2} -m AP -o {O}",
    "meta leaderboards": "meta leaderboards {Q} {Q2} {R1} {R2} {R3} -m AP",
    "judges estimate": "judges estimate {Q} {L} {R1X} {R2X} -m AP",
    "judges allocate": "judges allocate {Q} {L} {R1X} {R2X} -m AP --budget 1 --strata 1",
    "judges reliability": "judges reliability {LD}",
    "judges ranking": "judges ranking {Q} {Q} {R1} {R2} -m AP --permutations 200",
    "baseline": "baseline {Q} {R1} -m AP -o {O}",
    "gate": "gate {Q} {R2} --baseline {B}",
    "diff": "diff {Q} {R1} -m AP -m nDCG@5 --as trec_eval,pytrec_eval,ranx",
    "leaderboard": "leaderboard {LB} --resamples 200",
}
#: commands whose output needs a model server: judges label writes its qrels through the same guarded writer
#: (rankmeter.io.output.output_file), tested against a live loopback server in tests/judges/test_label.py
SERVED = {"judges label"}
#: further writers of a file: check --dedupe (a TREC run), eval's other paths
EXTRA_OUTPUTS = {"check --dedupe": "check {Q} {R1} --dedupe first -o {O}"}


def _registry() -> dict[str, argparse.ArgumentParser | None]:
    """Every command and kind the CLI registers ("meta correlate", "run cut" ...) -> its parser."""
    from rankmeter.cli.app import _parser

    top = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    found: dict[str, argparse.ArgumentParser | None] = {}
    for name, sub in top.choices.items():
        kinds = next((a for a in sub._actions if isinstance(a, argparse._SubParsersAction)), None)
        action = next((a for a in sub._actions if a.dest == "action" and a.choices), None)
        if name == "trec_eval":
            found[name] = None
        elif kinds is not None:
            found.update({f"{name} {kind}": p for kind, p in kinds.choices.items()})
        elif action is not None:
            found.update({f"{name} {kind}": sub for kind in action.choices})
        else:
            found[name] = sub
    return found


def _formats(parser) -> tuple[str, ...]:
    """The --format choices a command offers (its flag's metavar, "{text,json}"), or text alone."""
    flag = next((a for a in (parser._actions if parser else ()) if "--format" in a.option_strings), None)
    return tuple(flag.metavar.strip("{}").split(",")) if flag is not None else ("text",)


def _stdout_cases() -> dict[str, tuple[str, dict]]:
    """Every command printing its results, in every --format it offers ."""
    cases: dict[str, tuple[str, dict]] = {}
    for name, parser in _registry().items():
        template = COMMANDS.get(name, "")
        if not template or "-o {O}" in template:
            continue
        for fmt in _formats(parser):
            cases[f"{name} --format {fmt}"] = (template + ("" if fmt == "text" else f" --format {fmt}"), {})
    cases["eval (streamed)"] = (COMMANDS["eval"] + " --chunked", {})
    return cases


def _file_cases() -> dict[str, str]:
    cases = {name: t for name, t in COMMANDS.items() if "-o {O}" in t}
    cases.update(EXTRA_OUTPUTS)
    return cases


STDOUT_CASES = _stdout_cases()
FILE_CASES = _file_cases()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    base = tmp_path_factory.mktemp("output-safety")
    for name, content in [("qrels.txt", QRELS), ("qrels-b.txt", QRELS_B), ("r1.run", RUNS[0]), ("r2.run", RUNS[1]),
                          ("r3.run", RUNS[2]), ("r4.run", OTHER_QUERIES), ("train.csv", TRAIN), ("recs.csv", RECS),
                          ("recs-b.csv", RECS_B), ("nuggets.jsonl", NUGGETS), ("board.csv", BOARD)]:
        (base / name).write_bytes(content)
    (base / "llm.txt").write_bytes(LLM)
    (base / "draws.txt").write_bytes(LLM + LLM.replace(b" 1\n", b" 0\n"))   # two draws of each pair
    (base / "r1x.run").write_bytes(RUNS[0] + MORE.replace(b"{}", b"a"))
    (base / "r2x.run").write_bytes(RUNS[1] + MORE.replace(b"{}", b"b"))
    made = run_cli_in_process(_argv("baseline {Q} {R1} -m AP -o {O}", base, base / "base.json"))
    assert made.code == 0, made.stderr
    return base


def _argv(template: str, folder: Path, output: str | Path = "") -> list[str]:
    names = {"{Q}": "qrels.txt", "{Q2}": "qrels-b.txt", "{R1}": "r1.run", "{R2}": "r2.run", "{R3}": "r3.run",
             "{R4}": "r4.run",
             "{T}": "train.csv", "{P}": "recs.csv", "{P2}": "recs-b.csv", "{N}": "nuggets.jsonl",
             "{L}": "llm.txt", "{R1X}": "r1x.run", "{R2X}": "r2x.run", "{B}": "base.json", "{LB}": "board.csv",
             "{LD}": "draws.txt"}
    words = []
    for word in template.split(" "):
        if word in names:
            word = str(folder / names[word])
        elif word.startswith("{O}"):
            word = str(output) + word[3:]
        words.append(word)
    return words


def _env(extra: dict | None = None) -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), **(extra or {}))


def _limited(limit: int, ignore_xfsz: bool = True):
    def setup() -> None:  # in the child: a file-size limit, as `ulimit -f` sets it
        if ignore_xfsz:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    return setup


def _child(argv, *, stdout, env=None, preexec_fn=None, timeout=300) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "rankmeter", *argv], stdout=stdout, stderr=subprocess.PIPE,
                          env=_env(env), preexec_fn=preexec_fn, timeout=timeout, stdin=subprocess.DEVNULL)
    return done.returncode, done.stderr.decode("utf-8", "replace")


def _one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and err.startswith("rankmeter: error: ") and "Traceback" not in err


# ------------------------------------------------------------------ standard output on a full disk

@pytest.fixture(scope="module")
def stdout_sweep(folder, tmp_path_factory):
    """Each printing case three ways, two children at a time: the normal output's size (in this process),
    stdout on /dev/full, stdout on a file limited to half that size."""
    work = tmp_path_factory.mktemp("stdout-sweep")
    sizes = {}
    for name, (template, env) in STDOUT_CASES.items():
        if env:
            sizes[name] = sizes[name.split(" (")[0] + " --format text"]
            continue
        result = run_cli_in_process(_argv(template, folder), text=False)
        assert result.code in (0, 1), (name, result.stderr)
        sizes[name] = len(result.stdout)

    def full(name):
        template, env = STDOUT_CASES[name]
        with open("/dev/full", "wb") as sink:
            return _child(_argv(template, folder), stdout=sink, env=env)

    def limited(name):
        template, env = STDOUT_CASES[name]
        path = work / (name.replace(" ", "_").replace("/", "") + ".out")
        with open(path, "wb") as sink:
            code, err = _child(_argv(template, folder), stdout=sink, env=env, preexec_fn=_limited(sizes[name] // 2))
        return code, err, path.stat().st_size

    with ThreadPoolExecutor(2) as pool:
        fulls = dict(zip(STDOUT_CASES, pool.map(full, STDOUT_CASES)))
        limits = dict(zip(STDOUT_CASES, pool.map(limited, STDOUT_CASES)))
    return sizes, fulls, limits


def test_the_sweep_covers_every_command_of_the_registry():
    registry = _registry()
    assert set(registry) == set(COMMANDS) | SERVED, "a command without a case here: add it to COMMANDS"
    printed = {name.split(" --format")[0].split(" (")[0] for name in STDOUT_CASES}
    assert printed | {n for n in FILE_CASES if n in COMMANDS} == set(COMMANDS)
    assert "eval --format csv" in STDOUT_CASES and "compare --format latex" in STDOUT_CASES


@pytest.mark.parametrize("name", list(STDOUT_CASES))
def test_stdout_on_a_full_disk_is_one_line_and_exit_2(stdout_sweep, name):
    sizes, fulls, _ = stdout_sweep
    assert sizes[name] > 20, (name, sizes[name])
    code, err = fulls[name]
    assert code == 2 and _one_line(err) and "No space left on device" in err, (name, code, err)


@pytest.mark.parametrize("name", list(STDOUT_CASES))
def test_stdout_over_a_file_size_limit_is_one_line_and_exit_2(stdout_sweep, name):
    sizes, _, limits = stdout_sweep
    code, err, written = limits[name]
    assert code == 2 and _one_line(err) and "File too large" in err, (name, code, err)
    assert written <= sizes[name] // 2


@pytest.mark.parametrize("name", ["trec_eval --format text", "eval --format text"])
def test_a_file_size_limit_with_sigxfsz_at_its_default_is_still_one_line(folder, tmp_path, name):
    """The shell's `ulimit -f` leaves SIGXFSZ at its default (which kills): rankmeter reports instead."""
    template = STDOUT_CASES[name][0]
    with open(tmp_path / "out", "wb") as sink:
        code, err = _child(_argv(template, folder), stdout=sink, preexec_fn=_limited(100, ignore_xfsz=False))
    assert code == 2 and _one_line(err) and "File too large" in err, (code, err)


def test_trec_eval_run_continues_a_short_write():
    """trec_eval's writer on a raw stream (python -u) whose writes take a few bytes at a time."""
    import io

    from rankmeter.cli.trec_eval import run

    class Trickle(io.RawIOBase):
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def write(self, b):
            self.data += bytes(b[:7])
            return min(7, len(b))

    out = Trickle()
    assert run(["-q", str(ROOT / "examples" / "qrels.txt"), str(ROOT / "examples" / "run.txt")], out=out) == 0
    whole = io.BytesIO()
    run(["-q", str(ROOT / "examples" / "qrels.txt"), str(ROOT / "examples" / "run.txt")], out=whole)
    assert bytes(out.data) == whole.getvalue() and len(whole.getvalue()) > 1000


# ------------------------------------------------------------------ -o on a full disk

@pytest.fixture(scope="module")
def file_sweep(folder, tmp_path_factory):
    work = tmp_path_factory.mktemp("file-sweep")
    sizes = {}
    for name, template in FILE_CASES.items():
        out = work / f"baseline-{name.replace(' ', '_')}"
        argv = _argv(template, folder, out)
        result = run_cli_in_process(argv)
        assert result.code in (0, 1), (name, result.stderr)
        sizes[name] = Path(argv[argv.index("-o") + 1]).stat().st_size

    def full(name):  # through a link named as the command wants (.svg, .html): /dev/full itself in the end
        link = work / f"full-{name.replace(' ', '_')}"
        suffix = next((w[3:] for w in FILE_CASES[name].split(" ") if w.startswith("{O}")), "")
        os.symlink("/dev/full", str(link) + suffix)
        return _child(_argv(FILE_CASES[name], folder, link), stdout=subprocess.PIPE)

    def limited(name):
        place = work / name.replace(" ", "_")
        place.mkdir()
        code, err = _child(_argv(FILE_CASES[name], folder, place / "out"), stdout=subprocess.PIPE,
                           preexec_fn=_limited(sizes[name] // 2))
        return code, err, sorted(p.name for p in place.iterdir())

    with ThreadPoolExecutor(2) as pool:
        fulls = dict(zip(FILE_CASES, pool.map(full, FILE_CASES)))
        limits = dict(zip(FILE_CASES, pool.map(limited, FILE_CASES)))
    return sizes, fulls, limits


@pytest.mark.parametrize("name", list(FILE_CASES))
def test_output_file_on_a_full_disk_is_one_line_and_exit_2(file_sweep, name):
    code, err = file_sweep[1][name]
    assert code == 2 and _one_line(err) and "cannot be written (No space left on device)" in err, (name, code, err)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


@pytest.mark.parametrize("name", list(FILE_CASES))
def test_output_file_over_a_file_size_limit_is_one_line_exit_2_and_nothing_left(file_sweep, name):
    sizes, _, limits = file_sweep
    assert sizes[name] > 20
    code, err, left = limits[name]
    assert code == 2 and _one_line(err) and "File too large" in err, (name, code, err)
    assert left == [], left  # neither the output nor a .part file


# ------------------------------------------------------------------ outputs that are not regular files

def _expected_cut(folder, tmp_path) -> bytes:
    """What `run cut` writes to a regular file: the reference for every other kind of target."""
    target = tmp_path / "reference.run"
    assert run_cli_in_process(_argv("run cut {R1} --k 2 -o {O}", folder, target)).code == 0
    return target.read_bytes()


def _dev_stdout_is_intact() -> None:
    assert os.path.islink("/dev/stdout") and os.readlink("/dev/stdout") == "/proc/self/fd/1"


@pytest.fixture
def dev_stdout():
    """/dev/stdout as the system has it; a build that renames over it (the bug) fails the test, and the
    symlink is put back, so that one failing run does not break the machine's /dev/stdout for the rest."""
    assert os.path.islink("/dev/stdout"), "/dev/stdout is not a symlink here (replaced by an earlier run?)"
    link = os.readlink("/dev/stdout")
    yield
    if not os.path.islink("/dev/stdout"):
        os.unlink("/dev/stdout")
        os.symlink(link, "/dev/stdout")
        pytest.fail(f"/dev/stdout was replaced by a regular file (the symlink to {link} is restored)")


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_dash_o_dev_stdout_writes_into_standard_output_and_replaces_nothing(folder, tmp_path, name, dev_stdout):
    expected = _expected_cut(folder, tmp_path)
    redirected = tmp_path / "redirected.txt"
    with open(redirected, "wb") as sink:
        code, err = _child(_argv("run cut {R1} --k 2 -o {O}", folder, name), stdout=sink)
    assert code == 0 and err == "", err
    assert redirected.read_bytes() == expected
    _dev_stdout_is_intact()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []
    with open(redirected, "ab") as sink:  # >> keeps what was there: the very descriptor, its O_APPEND
        code, err = _child(_argv("run cut {R1} --k 2 -o {O}", folder, name), stdout=sink)
    assert code == 0 and redirected.read_bytes() == expected * 2
    done = subprocess.run([sys.executable, "-m", "rankmeter", *_argv("run cut {R1} --k 2 -o {O}", folder, name)],
                          capture_output=True, env=_env())  # a pipe
    assert done.returncode == 0 and done.stdout == expected
    _dev_stdout_is_intact()


def test_dash_o_dev_stdout_with_standard_output_closed_is_one_line(folder, dev_stdout):
    done = subprocess.run([sys.executable, "-m", "rankmeter", *_argv("run cut {R1} --k 2 -o /dev/stdout", folder)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_env(),
                          preexec_fn=lambda: os.close(1))
    err = done.stderr.decode()
    assert done.returncode == 2 and _one_line(err) and "cannot be written" in err, err
    _dev_stdout_is_intact()


def test_dash_o_a_device_writes_to_it(folder):
    code, err = _child(_argv("run cut {R1} --k 2 -o /dev/null", folder), stdout=subprocess.PIPE)
    assert code == 0 and err == ""
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_dash_o_a_symlink_writes_through_it_atomically(folder, tmp_path):
    expected = _expected_cut(folder, tmp_path)
    target = tmp_path / "target.run"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "link.run"
    link.symlink_to(target)
    code, err = _child(_argv("run cut {R1} --k 2 -o {O}", folder, link), stdout=subprocess.PIPE)
    assert code == 0 and err == ""
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == expected and stat.S_IMODE(target.stat().st_mode) == 0o640
    dangling = tmp_path / "dangling.run"
    dangling.symlink_to(tmp_path / "made-by-the-link.run")
    code, err = _child(_argv("run cut {R1} --k 2 -o {O}", folder, dangling), stdout=subprocess.PIPE)
    assert code == 0 and dangling.is_symlink() and (tmp_path / "made-by-the-link.run").read_bytes() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.run", "link.run", "made-by-the-link.run",
                                                          "reference.run", "target.run"]


def test_dash_o_a_symlink_to_an_input_is_refused(folder, tmp_path):
    link = tmp_path / "link.run"
    link.symlink_to(folder / "r1.run")
    code, err = _child(_argv("run cut {R1} --k 2 -o {O}", folder, link), stdout=subprocess.PIPE)
    assert code == 2 and _one_line(err) and "one of the inputs" in err
    assert link.is_symlink() and (folder / "r1.run").read_bytes() == RUNS[0]


def _first_line(proc, timeout: float = 120) -> bytes:
    """The child's first line on stderr; a child silent that long is killed (a hang fails, never blocks)."""
    import select

    ready, _, _ = select.select([proc.stderr], [], [], timeout)
    if not ready:
        proc.kill()
        proc.communicate()
        pytest.fail(f"nothing on stderr within {timeout} s: waiting silently")
    return proc.stderr.readline()


def test_dash_o_a_fifo_with_a_reader_and_without(folder, tmp_path):
    """No reader yet: a note on stderr that it waits (documented in rankmeter.io.output), then the
    output once a reader comes; the FIFO stays a FIFO."""
    expected = _expected_cut(folder, tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "rankmeter", *_argv("run cut {R1} --k 2 -o {O}", folder, fifo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    note = _first_line(proc).decode()
    assert note.startswith("rankmeter: waiting for a reader of ") and str(fifo) in note, note
    with open(fifo, "rb") as reader:
        data = reader.read()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b"" and data == expected
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    got = {}
    reader = threading.Thread(target=lambda: got.setdefault("data", fifo.read_bytes()), daemon=True)
    reader.start()  # a reader already there: no note
    time.sleep(0.2)
    code, err = _child(_argv("run cut {R1} --k 2 -o {O}", folder, fifo), stdout=subprocess.PIPE, timeout=120)
    reader.join(60)
    assert code == 0 and got["data"] == expected and "waiting" not in err


def test_sigterm_while_waiting_for_a_fifo_reader_ends_the_process(folder, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "rankmeter", *_argv("run cut {R1} --k 2 -o {O}", folder, fifo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    assert _first_line(proc).startswith(b"rankmeter: waiting for a reader")
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGTERM and sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


@pytest.fixture(scope="module")
def big_run(tmp_path_factory):
    """A run whose JSON Lines output takes a while to write (a Python loop per line)."""
    path = tmp_path_factory.mktemp("big") / "big.run"
    with open(path, "w") as fh:
        for q in range(600):
            fh.writelines(f"q{q} Q0 d{d} {d + 1} {1000 - d}.5 t\n" for d in range(500))
    return path


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_mid_write_leaves_no_temporary_file(big_run, tmp_path, signum):
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "rankmeter", "run", "convert", str(big_run), "--to", "jsonl",
                             "-o", str(out / "big.jsonl")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    deadline = time.monotonic() + 240
    while not any(p.name.endswith(".part") for p in out.iterdir()):
        assert proc.poll() is None, "finished before its temporary file was seen: make the run bigger"
        assert time.monotonic() < deadline
        time.sleep(0.001)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    left = sorted(p.name for p in out.iterdir())
    if left == ["big.jsonl"]:  # the signal came as the file was renamed into place: it is whole
        lines = (out / "big.jsonl").read_bytes().splitlines()
        last = {"query_id": "q99", "doc_id": "d499", "rank": 500, "score": 501.5}
        assert len(lines) == 600 * 500 and json.loads(lines[-1]) == last
        return
    assert left == []
    if signum == signal.SIGINT:
        assert proc.returncode == 130 and err == b"rankmeter: interrupted\n"
    else:
        assert proc.returncode == -signum and err == b""


def test_output_file_unit_paths(tmp_path):
    """The library's writer: a link kept, a device written, /dev/stdout resolved to descriptor 1."""
    from rankmeter.io.output import _resolve, output_file

    target = tmp_path / "t.txt"
    link = tmp_path / "l.txt"
    link.symlink_to(target)
    with output_file(link) as fh:
        fh.write("through\n")
    assert link.is_symlink() and target.read_text() == "through\n"
    with output_file("/dev/null") as fh:
        fh.write("x" * 100_000)
    if os.path.islink("/dev/stdout"):
        assert _resolve(Path("/dev/stdout"))[1] == 1 and _resolve(Path("/dev/fd/2"))[1] == 2
    assert _resolve(link) == (target, None)


# ------------------------------------------------------------------ standard error closed or full

_STDERR_CASES = [n for n in STDOUT_CASES if n.endswith("--format text") or n == "eval --format json"]


@pytest.fixture(scope="module")
def closed_stderr(folder):
    """Each printing command (text) with standard error closed (2>&-), next to the same run with it open
    (in this process: the same output, as the sweep's sizes show)."""
    def closed(name):
        return subprocess.run([sys.executable, "-m", "rankmeter", *_argv(STDOUT_CASES[name][0], folder)],
                              stdout=subprocess.PIPE, env=_env(), stdin=subprocess.DEVNULL,
                              preexec_fn=lambda: os.close(2))

    normal = {name: run_cli_in_process(_argv(STDOUT_CASES[name][0], folder), text=False) for name in _STDERR_CASES}
    with ThreadPoolExecutor(2) as pool:
        return {name: (normal[name], done) for name, done in zip(_STDERR_CASES, pool.map(closed, _STDERR_CASES))}


@pytest.mark.parametrize("name", _STDERR_CASES)
def test_standard_error_closed_leaves_the_results_alone(closed_stderr, name):
    normal, closed = closed_stderr[name]
    assert normal.code in (0, 1) and len(normal.stdout) > 20
    assert closed.returncode == normal.code and closed.stdout == normal.stdout, closed.stdout[-300:]


def test_standard_error_closed_with_a_warning_an_error_and_an_output_file(folder, tmp_path):
    only_q1 = tmp_path / "q1.run"
    only_q1.write_bytes(RUNS[0].splitlines(keepends=True)[0])
    runs = [
        (["eval", str(folder / "qrels.txt"), str(only_q1), "-m", "AP"], 0),  # warns: queries without results
        (["eval", str(folder / "qrels.txt"), str(tmp_path / "missing.run"), "-m", "AP"], 2),
        (["trec_eval", "-q", "-m", "map", str(folder / "qrels.txt"), str(only_q1)], 0),  # warns too
        (_argv("run cut {R1} --k 2 -o {O}", folder, tmp_path / "out.run"), 0),
    ]
    for argv, want in runs:
        normal = subprocess.run([sys.executable, "-m", "rankmeter", *argv], capture_output=True, env=_env())
        assert normal.returncode == want and (want == 2 or b"warning" in normal.stderr or "-o" in argv)
        closed = subprocess.run([sys.executable, "-m", "rankmeter", *argv], stdout=subprocess.PIPE, env=_env(),
                                preexec_fn=lambda: os.close(2))
        assert closed.returncode == want and closed.stdout == normal.stdout, (argv, closed.stdout)
    assert (tmp_path / "out.run").read_bytes() == _expected_cut(folder, tmp_path)


def test_standard_error_on_a_full_disk_changes_nothing(folder):
    argv = [sys.executable, "-m", "rankmeter", *_argv(COMMANDS["eval"], folder)]
    normal = subprocess.run(argv, capture_output=True, env=_env())
    with open("/dev/full", "wb") as full:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=full, env=_env())
    assert done.returncode == normal.returncode == 0 and done.stdout == normal.stdout


# ------------------------------------------------------------------ ids a TREC run can and cannot hold

QUOTED = b'q"1 Q0 d"1 1 2.5 t\nq"1 Q0 d2 2 3 t\nq2 Q0 "d" 1 1.0 t\n'
QUOTED_TWICE = b'q"1 Q0 d"1 1 2.5 t\nq"1 Q0 d2 2 3 t\nq"1 Q0 d"1 3 1 t\nq2 Q0 "d" 1 1.0 t\n'


@pytest.mark.parametrize("command, expected", [
    ("run rerank {X} -o {O}", b'q"1 Q0 d2 1 3.0 t\nq"1 Q0 d"1 2 2.5 t\nq2 Q0 "d" 1 1.0 t\n'),
    ("check {Q} {X2} --dedupe first -o {O}", b'q"1 Q0 d"1 1 2.5 t\nq"1 Q0 d2 2 3 t\nq2 Q0 "d" 1 1.0 t\n'),
    ("fuse {X} {X3} --method rrf -o {O}", None),
])
def test_ids_holding_a_quote_are_written_as_trec(folder, tmp_path, command, expected):
    files = {"{X}": QUOTED, "{X2}": QUOTED_TWICE, "{X3}": b'q"1 Q0 d2 1 9.0 u\nq2 Q0 "d" 1 1.0 u\n'}
    for key, content in files.items():
        (tmp_path / key.strip("{}")).write_bytes(content)
    out = tmp_path / "out.run"
    argv = _argv(command, folder, out)
    argv = [str(tmp_path / w.strip("{}")) if w in files else w for w in argv]
    result = run_cli_in_process(argv)
    assert result.code in (0, 1), result.stderr
    if expected is not None:
        assert out.read_bytes() == expected
    else:  # hand-worked RRF (k=60): q"1: d2 = 1/61 + 1/61 (rank 1 in both), d"1 = 1/62; q2: "d" = 2/61
        lines = [line.split(b" ") for line in out.read_bytes().splitlines()]
        assert [(q, d, r) for q, _, d, r, _, _ in lines] == [(b'q"1', b"d2", b"1"), (b'q"1', b'd"1', b"2"),
                                                             (b"q2", b'"d"', b"1")]
        assert [float(line[4]) for line in lines] == pytest.approx([2 / 61, 1 / 62, 2 / 61], abs=1e-15)
    import rankmeter  # and it reads back: the same rows
    back = rankmeter.io.read_run(out)
    assert back.table.num_rows == len(out.read_bytes().splitlines())
    assert b'"' in b"".join(back.table.column("doc").to_pylist())


@pytest.mark.parametrize("rows, what", [
    ([{"query": "q 1", "doc": "d1", "score": 1.0}], "the query id q 1 holds a blank"),
    ([{"query": "q1", "doc": "d\t1", "score": 1.0}], "the doc id"),
    ([{"query": "q1", "doc": "d\n1", "score": 1.0}], "the doc id"),
    ([{"query": "#q", "doc": "d1", "score": 1.0}], "starts with #"),
])
def test_ids_a_trec_run_cannot_hold_are_refused_in_one_line(tmp_path, rows, what):
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.run"
    result = run_cli_in_process("run", "convert", source, "--to", "trec", "-o", out)
    assert result.code == 2 and _one_line(result.stderr) and what in result.stderr, result.stderr
    assert "TREC run cannot hold" in result.stderr and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_a_tag_a_trec_run_cannot_hold_is_refused(folder, tmp_path):
    result = run_cli_in_process(_argv("run tag {R1} --tag", folder) + ["a b", "-o", str(tmp_path / "o.run")])
    assert result.code == 2 and _one_line(result.stderr) and "run tag 'a b'" in result.stderr
    assert list(tmp_path.iterdir()) == []
