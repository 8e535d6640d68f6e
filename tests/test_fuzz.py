"""A bounded, deterministic fuzz of every command and input kind, as an attacker would (issue 22).

Each case runs the command line in this process (``rankmeter.cli.app.main``; a few as child
processes) and must: exit 0 or 2 (``check`` may exit 1: it found problems), never with a signal
or an exception escaping (the "internal error" line); leave every input byte for byte as it was;
leave an output complete or absent (no ``.part`` file, none at all after a refusal); and give the
same exit status, standard output and output file when run twice. The Python API gets hostile
dicts, frames and byte streams: a value or a RankmeterError, never another exception, and the
object passed in unchanged.

Every case is its own test, parametrized from fixed lists and a fixed seed (the same cases run every
time), and asserts on its own: a failing case names its exact argv, and the others still run. The
cases issue 32 reported are here too (``test_issue_32_*``), each with the value or refusal expected.
"""
from __future__ import annotations

import bz2
import contextlib
import copy
import gzip
import hashlib
import io
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rankmeter
from rankmeter.errors import RankmeterError

QRELS = b"q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d4 0\nq3 0 d5 1\nq3 0 d6 2\n"
QRELS_B = b"q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d1 1\nq2 0 d4 1\nq3 0 d5 0\nq3 0 d6 2\n"
RUNS = [
    b"q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq1 Q0 d3 3 1.0 a\nq2 Q0 d4 1 2.0 a\nq2 Q0 d1 2 1.0 a\nq3 Q0 d6 1 1.0 a\n",
    b"q1 Q0 d3 1 3.0 b\nq1 Q0 d1 2 2.0 b\nq2 Q0 d1 1 2.0 b\nq2 Q0 d4 2 1.0 b\nq3 Q0 d5 1 2.0 b\nq3 Q0 d6 2 1.0 b\n",
    b"q1 Q0 d2 1 3.0 c\nq1 Q0 d9 2 2.0 c\nq2 Q0 d1 1 5.0 c\nq3 Q0 d6 1 1.0 c\nq3 Q0 d5 2 0.5 c\n",
]
TRAIN = b"user,item\nu1,i1\nu1,i2\nu2,i2\nu2,i3\nu3,i1\n"
RECS = b"user,item,score\nu1,i3,0.9\nu1,i4,0.5\nu2,i1,0.8\nu2,i4,0.1\nu3,i2,0.7\n"
NUGGETS = (b'{"qid": "q1", "nuggets": [{"text": "a", "importance": "vital", "assignment": "support"},'
           b' {"text": "b", "importance": "okay", "assignment": "not_support"}]}\n')

# Each command once, valid: {Q} qrels, {Q2} other qrels, {R1..R3} runs, {T} train, {P} recommendations,
# {N} nuggets, {O} an output path (fresh for every case). Taken from `rankmeter --help`.
COMMANDS = {
    "eval": "eval {Q} {R1} {R2} -m AP -m nDCG@5",
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
    "fuse-probfuse": "fuse {R1} {R2} {R3} --method probfuse --qrels {Q} -o {O}",
    "pool": "pool {R1} {R2} --depth 2 -o {O}",
    "agree": "agree {Q} {Q2}",
    "judges-aggregate": "judges aggregate {Q} -o {O}",
    "judges-mix": "judges mix {Q} {Q2} -o {O}",
    "judges-impact": "judges impact {Q} {Q2} {R1} {R2} -m AP --permutations 200",
    "judges-ranking": "judges ranking {Q} {Q2} {R1} {R2} -m AP --permutations 200",
    "nuggets": "nuggets {N}",
    "run-cut": "run cut {R1} --k 1 -o {O}",
    "run-filter": "run filter {R1} --keep q1 -o {O}",
    "run-tag": "run tag {R1} --tag x -o {O}",
    "run-merge": "run merge {R1} {R2} -o {O}",
    "run-sample": "run sample {R1} -n 2 --seed 3 -o {O}",
    "run-convert": "run convert {R1} --to jsonl -o {O}.jsonl",
    "run-rerank": "run rerank {R1} -o {O}",
    "beyond": "beyond {T} {P} --user user --item item",
    "meta-correlate": "meta correlate {Q} {R1} {R2} {R3} -m AP -m nDCG",
    "meta-discriminative-power": "meta discriminative-power {Q} {R1} {R2} {R3} -m AP --permutations 100",
    "meta-swap-rate": "meta swap-rate {Q} {R1} {R2} {R3} -m AP --trials 5 --seed 2",
    "meta-topic-set-size": "meta topic-set-size --min-diff 0.1 --variance 0.05",
    "meta-zscores": "meta zscores {Q} {R1} {R2} -m AP -o {O}",
    "meta-leaderboards": "meta leaderboards {Q} {Q2} {R1} {R2} {R3} -m AP",
}
SLOTS = ("{Q}", "{Q2}", "{R1}", "{R2}", "{T}", "{P}", "{N}")

# Absurd values for numeric and text flags, by flag (each appears in some command above or is added).
ABSURD = ["-1", "0", "nan", "inf", "-inf", "1e308", "abc", "99999999999999999999999", "0.5", ""]
FLAGS = {
    "eval": ["--decimals", "--rel", "--max-docs"],
    "compare": ["--alpha", "--permutations", "--seed"],
    "report": ["--alpha", "--max-ranks", "--explain-queries"],
    "judged": ["--cutoff", "--p", "--decimals"],
    "fuse": ["--param k=", "--weights", "--max-docs"],
    "pool": ["--depth", "--take"],
    "run-cut": ["--k"],
    "run-sample": ["-n", "--seed"],
    "meta-correlate": ["--p", "--decimals"],
    "meta-swap-rate": ["--trials", "--size", "--bin-width", "--seed"],
    "meta-topic-set-size": ["--alpha", "--beta", "--topics", "--min-diff", "--variance"],
    "meta-leaderboards": ["--top-k", "--moves", "--p"],
    "beyond": ["--k", "--head", "--tail-ratio", "--alpha", "--seed"],
    "agree": ["--rel", "--decimals"],
    "trec_eval": ["-l", "-M"],
}
MEASURES = ["INST(T=0)", "IPrec@7", "IPrec@-0.5", "P@0", "P@-1", "nDCG(gain=exp)", "RBP(p=1)",
            "nDCG(log_base=1)", "P@" + "9" * 400, "AP(" + "(" * 5000, "ERR(max_grade=0)", "nosuch", ""]


def _hostile_contents() -> dict[str, bytes]:
    """What a careless or hostile hand passes where a file is expected."""
    return {
        "empty": b"",
        "blank": b" \n\n\t\n",
        "nul": b"q1 0 d1 1\n\x00\x00\x00",
        "random-bytes": random.Random(7).randbytes(4096),
        "gzip-junk": gzip.compress(random.Random(8).randbytes(2048)),
        "gzip-zeros-32MiB": gzip.compress(bytes(32 << 20), 1),
        "gzip-truncated": gzip.compress(QRELS)[:20],
        "bz2-header-6-bytes": b"BZh91A",
        "bz2-corrupt": bz2.compress(QRELS)[:12] + b"\xff" * 20,
        "utf16": "q1 0 d1 1\n".encode("utf-16"),
        "json-null": b"null\n",
        "json-null-field": b'{"query": null, "doc": "d1", "score": 1}\n',
        "json-deep": b"[" * 100_000 + b"]" * 100_000 + b"\n",
        "json-array": b'[{"query": "q1", "doc": "d1", "score": 1}, 3]\n',
        "huge-id": b"q" * (1 << 20) + b" 0 d1 1\n",
        "bidi-id": "q1\u202e 0 d1 1\nq1\u202e Q0 d1 1 1.0 t\n".encode(),
        "not-utf8-id": b"q\xff1 0 d\xfe 1\nq\xff1 Q0 d\xfe 1 1.0 t\n",
        "not-utf8-run": b"q\xff1 Q0 d\xfe 1 1.0 t\nq\xff1 Q0 d2 2 0.5 t\n",
        "grade-3000": b"q1 0 d1 3000\nq1 0 d2 0\nq2 0 d1 1\n",
        "grade-negative": b"q1 0 d1 -5\nq2 0 d1 1\n",
        "score-nan-inf": b"q1 Q0 d1 1 nan t\nq1 Q0 d2 2 inf t\n",
        "score-1e400": b"q1 Q0 d1 1 1e400 t\n",
        "duplicate-doc": b"q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n",
        "one-field": b"q1\n",
        "crlf-mixed": b"q1 0 d1 1\r\nq2 0 d4 0\rq3 0 d5 1\n",
        "csv-header-only": b"query,doc,score\n",
        "tag-3000": b"q1 Q0 d1 1 2.0 " + b"t" * 3000 + b"\n",
        # issue 32
        "wide-first-line": b"q1 Q0 d1 1 2.5 t" + b" x" * 100_000 + b"\nq1 Q0 d2 2 abc t\n",
        "bom-after-comment": b"# c\n\xef\xbb\xbfq1 0 d1 1\nq1 0 d2 0\n",
        "judged-hash-query": b"#q 0 d1 1\nq1 0 d1 1\n",
        "grade-int64-max": b"q1 0 d1 9223372036854775807\nq1 0 d2 0\nq2 0 d1 1\n",
        "lone-cr": b"q1 Q0 d1 1 2.0 t\rq1 Q0 d2 2 1.0 t\rq2 Q0 d1 1 1.0 t\r",
        "tab-vt-mixed": b"q1\tQ0\x0bd1\x0b1\x0b2.5\x0bt\nq1 Q0 d2\t2\t1.5 t\n",
    }


#: the kinds, known when the tests are collected (and the three paths that are no regular file)
HOSTILE_KINDS = sorted([*_hostile_contents(), "directory", "missing", "/dev/null"])
#: read too slowly to be read twice, or too big
_ONCE = ("gzip-zeros-32MiB", "huge-id", "json-deep", "wide-first-line")


def _hostile_files(folder: Path) -> dict[str, Path]:
    paths = {}
    for name, content in _hostile_contents().items():
        path = folder / f"hostile-{name}"
        path.write_bytes(content)
        paths[name] = path
    (folder / "a-folder").mkdir()
    paths["directory"] = folder / "a-folder"
    paths["missing"] = folder / "no-such-file"
    paths["/dev/null"] = Path("/dev/null")
    # /dev/zero and /dev/urandom never end: a reader that reads them whole takes the machine's memory, so
    # they are tried only in child processes with their address space capped (test_endless_inputs)
    return paths


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    except OSError:
        return None


class _Harness:
    """Runs argv in this process and checks every promise; :meth:`run` returns the case's failures."""

    def __init__(self, folder: Path):
        from rankmeter.cli.app import main
        self.main = main
        self.folder = folder
        self.out = folder / "out"
        self.out.mkdir()
        self.fixtures = {"{Q}": folder / "qrels.txt", "{Q2}": folder / "qrels-b.txt",
                         "{R1}": folder / "r1.run", "{R2}": folder / "r2.run", "{R3}": folder / "r3.run",
                         "{T}": folder / "train.csv", "{P}": folder / "recs.csv", "{N}": folder / "nuggets.jsonl"}
        for key, content in zip(self.fixtures, [QRELS, QRELS_B, *RUNS, TRAIN, RECS, NUGGETS]):
            self.fixtures[key].write_bytes(content)
        self.hostile = _hostile_files(folder)
        self.watched = [p for p in [*self.fixtures.values(), *self.hostile.values()] if p.is_file()]
        self.before = {p: _digest(p) for p in self.watched}
        self.failures: list[str] = []
        self.cases = 0

    def _argv(self, template: str, replace: dict[str, str], output: Path) -> list[str]:
        words = template.split(" ")
        mapping = {k: str(v) for k, v in self.fixtures.items()}
        mapping.update(replace)
        mapping["{O}"] = str(output)
        out = []
        for word in words:
            for key, value in mapping.items():
                word = word.replace(key, value)
            out.append(word)
        return out

    def _once(self, argv: list[str]) -> tuple[object, str, str]:
        stdout, stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape"), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = self.main(argv)
            except SystemExit as exc:  # argparse: exit 2 with its one-line message
                code = exc.code
            except BaseException as exc:  # noqa: BLE001 - what the console entry calls an internal error
                code = f"internal error: {type(exc).__name__}: {str(exc)[:300]}"
        stdout.flush()
        return code, stdout.buffer.getvalue().decode("utf-8", "replace"), stderr.getvalue()

    def run(self, klass: str, template: str, replace: dict[str, str] | None = None, *,
            twice: bool = True, may_fail_check: bool = False, expect: tuple = ()) -> list[str]:
        """Run one case (twice, unless ``twice=False``); the list of its failures (empty: it held)."""
        self.cases += 1
        self.failures = []
        outputs = [self.out / f"case{self.cases}-{i}" for i in range(2 if twice else 1)]
        results = []
        for output in outputs:
            argv = self._argv(template, replace or {}, output)
            code, stdout, stderr = self._once(argv)
            self.code, self.stdout, self.stderr = code, stdout, stderr
            shown = " ".join(a if len(a) < 200 else a[:60] + f"...({len(a)} chars)" for a in argv)
            allowed = expect or ((0, 2, 1) if (may_fail_check or argv[0] == "check") else (0, 2))
            if code not in allowed:
                self.failures.append(f"[{klass}] exit {code!r}: rankmeter {shown}\n    {stderr.strip()[:300]}")
            elif "internal error" in stderr or "Traceback" in stderr:
                self.failures.append(f"[{klass}] internal error: rankmeter {shown}\n    {stderr.strip()[:300]}")
            made = sorted(p for p in self.out.iterdir() if p.name.startswith(output.name))
            parts = [p for p in self.out.iterdir() if p.name.endswith(".part")]
            if parts:
                self.failures.append(f"[{klass}] a partial output was left ({parts[0].name}): rankmeter {shown}")
                for p in parts:
                    p.unlink()
            if code == 2 and expect == (2,) and len(stderr.strip().splitlines()) != 1:
                self.failures.append(f"[{klass}] the refusal is not one line: rankmeter {shown}\n    {stderr[:300]}")
            if code == 0 and "-o {O}" in template and not any(p.is_file() and p.stat().st_size for p in made):
                self.failures.append(f"[{klass}] exit 0 but no output written: rankmeter {shown}")
            if code != 0 and made and argv[0] != "check":
                self.failures.append(f"[{klass}] exit {code} but an output was written ({made[0].name}): "
                                     f"rankmeter {shown}")
            results.append((code, stdout.replace(str(output), "{O}"),
                            [(p.name.replace(output.name, ""), p.read_bytes()) for p in made if p.is_file()],
                            shown))
        seen = set()
        self.failures[:] = [f for f in self.failures if not (f in seen or seen.add(f))]
        self.last = results[-1]
        changed = [p.name for p in self.watched if _digest(p) != self.before[p]]
        if changed:
            self.failures.append(f"[{klass}] inputs modified ({', '.join(changed)}): rankmeter {results[0][3]}")
            for p in self.watched:  # restore, so that one failure does not spoil the others
                self.before[p] = _digest(p)
        if twice and results[0][:3] != results[1][:3]:
            what = "exit status" if results[0][0] != results[1][0] else \
                "standard output" if results[0][1] != results[1][1] else "output file"
            self.failures.append(f"[{klass}] not deterministic ({what} differs): rankmeter {results[0][3]}")
        return list(self.failures)


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    return _Harness(tmp_path_factory.mktemp("fuzz"))


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_runs_clean_on_valid_input(harness, name):
    assert not harness.run("valid input, every command", COMMANDS[name])


def _hostile_cases() -> list[tuple[str, str, str]]:
    """(command, slot, kind): every (command, file slot) with two kinds, one in turn and one drawn by a
    fixed seed, so that each kind meets several commands."""
    pick = random.Random(22)
    pairs = [(name, slot) for name, template in COMMANDS.items() for slot in SLOTS if slot in template]
    cases = []
    for i, (name, slot) in enumerate(pairs):
        for kind in (HOSTILE_KINDS[i % len(HOSTILE_KINDS)], pick.choice(HOSTILE_KINDS)):
            if (name, slot, kind) not in cases:
                cases.append((name, slot, kind))
    return cases


@pytest.mark.parametrize("name, slot, kind", _hostile_cases())
def test_hostile_files_in_every_input_slot(harness, name, slot, kind):
    assert not harness.run(f"hostile file: {kind}", COMMANDS[name], {slot: str(harness.hostile[kind])},
                           twice=kind not in _ONCE)


def _absurd_cases() -> list[str]:
    pick = random.Random(23)
    cases = []
    for name, flags in FLAGS.items():
        for flag in flags:
            for value in pick.sample(ABSURD, 3):
                extra = f"{flag}{value}" if flag.endswith("=") else f"{flag} {value}"
                cases.append(COMMANDS[name] + " " + extra if value else COMMANDS[name] + " " + flag)
    measure_commands = [n for n, t in COMMANDS.items() if " -m AP" in t]
    for i, measure in enumerate(MEASURES):
        for name in (measure_commands[i % len(measure_commands)], "eval"):
            case = COMMANDS[name].replace(" -m AP", " -m " + measure, 1).replace(" -m nDCG@5", "")
            if case not in cases:
                cases.append(case)
    return cases


@pytest.mark.parametrize("template", _absurd_cases(), ids=lambda t: t[:80])
def test_absurd_parameters(harness, template):
    assert not harness.run("absurd parameter value", template)


# The cases issue 22 reported, each refused (exit 2) with one line and no output written.
REPORTED = [
    "fuse {R1} {R2} --method rrf --param k=-1 -o {O}",
    "fuse {R1} {R2} --method rrf --param k=abc -o {O}",
    "fuse {R1} {R2} --method wsum --weights nan 1 -o {O}",
    "fuse {R1} {R2} --method wsum --weights inf 1 -o {O}",
    "fuse {R1} {R2} --method rbc --param phi=2 -o {O}",
    "fuse {R1} {R2} --method slidefuse --qrels {Q} --param w=-1 -o {O}",
    "fuse {R1} {R2} --method gmnz --param gamma=nan -o {O}",
    "fuse {R1} {hostile-duplicate-doc} --method sum -o {O}",
    "run tag {R1} -o {O}",
    "run filter {R1} --keep 9 -o {O}",
    "run convert {hostile-not-utf8-run} --to jsonl -o {O}.jsonl",
    "eval {Q} {R1} -m AP --decimals -1",
    "compare {Q} {R1} {R2} -m AP --alpha 5",
    "compare {Q} {R1} {R2} -m AP --seed -1 --test randomization --permutations 100",
    "meta swap-rate {Q} {R1} {R2} {R3} -m AP --trials -1",
    "meta correlate {Q} {R1} {R2} {R3} -m AP -m AP",
    "beyond {T} {P} --user user --item item --score user",
    "eval {Q} {R1} -m INST(T=0)",
    "eval {Q} {R1} -m IPrec@7",
    "eval {Q} {R1} -m IPrec@-0.5",
    "eval {hostile-grade-3000} {R1} -m DCG(gain=exp)",
    "meta zscores {Q} {R1} {R2} -m map -o {R1}",
    "meta zscores {Q} {R1} {R2} -m map -o {Q}",
    "fuse {R1} {R2} --method probfuse --qrels {Q} -o {Q}",
    "fuse {R1} {R2} --method sum --optimise AP --qrels {Q} -o {Q}",
]
# Accepted, with the right result (exit 0): run convert to Parquet keeps the bytes of a non-UTF-8 id;
# nDCG(gain=exp) of a grade of 3000 is a number.
REPORTED_ACCEPTED = [
    "run convert {hostile-not-utf8-run} --to parquet -o {O}.parquet",
    "eval {hostile-grade-3000} {R1} -m nDCG(gain=exp) --format json",
]


# Found by this fuzz (each once, whatever the sampling above draws): refused, one line.
FOUND = [
    "nuggets {hostile-gzip-junk}",
    "meta topic-set-size --min-diff 0.1 --variance 0.05 --topics 99999999999999999999999",
    "agree {Q} {Q2} --rel 99999999999999999999999",
]
# Either is right, but never an internal error: trec_eval reads -l with atoi, so "abc" is level 0.
REPORTED_EITHER = ["trec_eval -l abc {Q} {R1}"]


def _with_hostile(harness) -> dict[str, str]:
    return {"{hostile-" + k + "}": str(v) for k, v in harness.hostile.items()}


@pytest.mark.parametrize("template", REPORTED)
def test_a_case_issue_22_reported_is_refused(harness, template):
    assert not harness.run("reported in issue 22: refused", template, _with_hostile(harness), expect=(2,))


@pytest.mark.parametrize("template", REPORTED_ACCEPTED)
def test_a_case_issue_22_reported_is_accepted(harness, template):
    assert not harness.run("reported in issue 22: accepted", template, _with_hostile(harness), expect=(0,))


@pytest.mark.parametrize("template", FOUND)
def test_a_case_this_fuzz_found_is_refused(harness, template):
    assert not harness.run("found by this fuzz: refused", template, _with_hostile(harness), expect=(2,))


@pytest.mark.parametrize("template", REPORTED_EITHER)
def test_a_case_issue_22_reported_is_no_internal_error(harness, template):
    assert not harness.run("reported in issue 22: no internal error", template, _with_hostile(harness))


_TARGETS = ("the qrels", "a run", "symlink to the qrels", "hard link to a run", "a folder", "missing folder",
            "/dev/full")


@pytest.mark.parametrize("what", _TARGETS)
@pytest.mark.parametrize("name", [n for n, t in COMMANDS.items() if "-o {O}" in t])
def test_misdirected_outputs(harness, what, name):
    """-o naming an input (same path, symlink, hard link), a folder, a missing folder, a device."""
    qrels = harness.fixtures["{Q}"]
    run = harness.fixtures["{R1}"]
    link, hard = harness.out / "link-to-qrels", harness.out / "hard-run"
    if not link.is_symlink():
        os.symlink(qrels, link)
    if not hard.exists():
        os.link(run, hard)
    target = {"the qrels": str(qrels), "a run": str(run), "symlink to the qrels": str(link),
              "hard link to a run": str(hard), "a folder": str(harness.out), "missing folder": "/no/such/dir/x",
              "/dev/full": "/dev/full"}[what]
    template = COMMANDS[name].replace("-o {O}.svg", "-o " + target).replace(
        "-o {O}.html", "-o " + target).replace("-o {O}.jsonl", "-o " + target).replace("-o {O}", "-o " + target)
    assert not harness.run(f"misdirected output: {what}", template, twice=False)
    assert _digest(qrels) == hashlib.sha256(QRELS).hexdigest() and _digest(run) == hashlib.sha256(RUNS[0]).hexdigest()


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(content=st.one_of(st.binary(max_size=300),
                         st.lists(st.sampled_from([b"q1", b"Q0", b"d1", b"0", b"1", b"-1", b"2.5", b"nan", b"1e999",
                                                   b"\xff", b"\x00", b"#", b"\t", b" ", b"\r", b"{", b"}", b"\"",
                                                   b",", b"\n", b"PAR1", b"BZh9", b"\x1f\x8b"]),
                                  max_size=40).map(b"".join)),
       command=st.sampled_from(["eval", "check", "fuse", "run-convert", "judged", "agree", "meta-correlate"]),
       slot=st.sampled_from(["{Q}", "{R1}", "{R2}"]))
def test_random_bytes_as_an_input(harness, content, command, slot):
    template = COMMANDS[command]
    if slot not in template:
        slot = next(s for s in SLOTS if s in template)
    path = harness.folder / "random-input"
    path.write_bytes(content)
    before = _digest(path)
    assert not harness.run("random bytes as an input", template, {slot: str(path)})
    assert _digest(path) == before


# ------------------------------------------------------------------ a few as child processes
def _capped(limit_bytes: int):
    def cap() -> None:  # in the child, before exec: an unbounded read fails there, not on the machine
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return cap


@pytest.mark.parametrize("command, slot, device", [
    ("eval", "{R1}", "/dev/zero"), ("nuggets", "{N}", "/dev/zero"), ("beyond", "{T}", "/dev/zero"),
    ("judges-aggregate", "{Q}", "/dev/zero"), ("agree", "{Q2}", "/dev/zero"), ("fuse", "{R2}", "/dev/zero"),
    ("meta-zscores", "{Q}", "/dev/urandom"), ("nuggets", "{N}", "/dev/urandom"), ("check", "{Q}", "/dev/urandom"),
])
def test_endless_inputs(harness, command, slot, device):
    """An endless device where a file is expected: refused as not text (exit 2), in bounded memory."""
    mapping = {k: str(v) for k, v in harness.fixtures.items()}
    mapping[slot] = device
    mapping["{O}"] = str(harness.out / f"endless-{command}")
    argv = []
    for word in COMMANDS[command].split(" "):
        for key, value in mapping.items():
            word = word.replace(key, value)
        argv.append(word)
    done = subprocess.run([sys.executable, "-m", "rankmeter", *argv], capture_output=True, timeout=120,
                          preexec_fn=_capped(3 << 30))
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, (argv, done.returncode, stderr[-500:])
    assert "internal error" not in stderr and "out of memory" not in stderr, (argv, stderr[-500:])


@pytest.mark.parametrize("argv, stdin", [
    (["eval", "{Q}", "{hostile-json-null}", "-m", "AP"], None),
    (["eval", "-", "{R1}", "-m", "AP"], b"null\n"),
    (["check", "{hostile-random-bytes}", "{R1}"], None),
    (["fuse", "{R1}", "{R2}", "--method", "probfuse", "--qrels", "{Q}", "-o", "{Q}"], None),
])
def test_child_processes(harness, argv, stdin):
    mapping = {k: str(v) for k, v in harness.fixtures.items()}
    mapping.update({"{hostile-" + k + "}": str(v) for k, v in harness.hostile.items()})
    argv = [mapping.get(a, a) for a in argv]
    done = subprocess.run([sys.executable, "-m", "rankmeter", *argv], input=stdin or b"", capture_output=True,
                          timeout=120, preexec_fn=_capped(3 << 30))
    assert done.returncode in (0, 2, 1 if argv[0] == "check" else 0), (argv, done.returncode, done.stderr[-500:])
    assert b"internal error" not in done.stderr and b"Traceback" not in done.stderr, done.stderr[-500:]
    assert _digest(harness.fixtures["{Q}"]) == hashlib.sha256(QRELS).hexdigest()


# ------------------------------------------------------------------ the Python API: dicts, frames, streams
_KEY = st.one_of(st.text(max_size=4), st.binary(max_size=3), st.integers(-3, 3), st.none(), st.booleans(),
                 st.floats(allow_nan=True), st.just("q" * 5000), st.just("q\u202e"))
_VALUE = st.one_of(st.integers(-10, 4000), st.floats(allow_nan=True, allow_infinity=True), st.none(), st.text(max_size=3),
                   st.booleans(), st.integers(2 ** 63, 2 ** 70), st.lists(st.integers(), max_size=2))
_DICT = st.dictionaries(_KEY, st.one_of(st.dictionaries(_KEY, _VALUE, max_size=4),
                                        st.lists(_KEY, max_size=4), _VALUE), max_size=4)
_API_MEASURES = st.lists(st.sampled_from(["AP", "nDCG(gain=exp)", "P@5", "RBP", "ERR", "INST", "IPrec@0.5",
                                          "nDCG(empty_target_action=skip)", "Bpref", "RR", "INST(T=0)"]),
                         min_size=1, max_size=3)


def _check_api_value(results) -> None:
    import json
    json.dumps(results.to_dict(per_query=True), allow_nan=False)  # undefined values are None, never NaN


@settings(max_examples=100, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(qrels=_DICT, run=_DICT, measures=_API_MEASURES)
def test_hostile_dicts(qrels, run, measures):
    kept_q, kept_r = copy.deepcopy(qrels), copy.deepcopy(run)
    try:
        _check_api_value(rankmeter.evaluate(qrels, run, measures))
    except RankmeterError:
        pass
    assert _same(qrels, kept_q) and _same(run, kept_r)


def _same(a, b) -> bool:
    """Equal, NaN equal to NaN (the object passed in must be unchanged)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(_same(x, y) and _same(a[x], b[y]) for x, y in zip(a, b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows=st.lists(st.tuples(_KEY, _KEY, _VALUE), min_size=0, max_size=6), measures=_API_MEASURES,
       as_run=st.booleans())
def test_hostile_frames(rows, measures, as_run):
    import pandas as pd
    frame = pd.DataFrame(rows, columns=["query", "doc", "score" if as_run else "rel"])
    kept = frame.copy(deep=True)
    good = {"q1": {"d1": 1}}
    try:
        if as_run:
            _check_api_value(rankmeter.evaluate(good, frame, measures))
        else:
            _check_api_value(rankmeter.evaluate(frame, {"q1": {"d1": 1.0}}, measures))
    except RankmeterError:
        pass
    pd.testing.assert_frame_equal(frame, kept)


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(content=st.binary(max_size=200), compress=st.sampled_from([None, "gzip", "bz2"]))
def test_hostile_byte_streams(content, compress):
    data = gzip.compress(content) if compress == "gzip" else bz2.compress(content) if compress == "bz2" else content
    for reader in (rankmeter.read_qrels, rankmeter.read_run):
        try:
            reader(io.BytesIO(data))
        except RankmeterError:
            pass


# ------------------------------------------------------------------ issue 32: each reported case on its own
_DEEP = b"[" * 100_000 + b"]" * 100_000
ISSUE_32_FILES = {
    "samples-blank-id": b'{"query": "q 1", "doc": "d1", "grade": 1}\n',
    "samples-newline-id": b'{"query": "q1", "doc": "d\\n1", "grade": 1}\n',
    "samples-empty-id": b'{"query": "", "doc": "d1", "grade": 1}\n',
    "samples-hash-query": b'{"query": "#q", "doc": "d1", "grade": 1}\n{"query": "q", "doc": "d1", "grade": 2}\n',
    "samples-nul-id": b'{"query": "q\\u0000", "doc": "d1", "grade": 1}\n',
    "samples-grade-2^63": b'{"query": "q", "doc": "d", "grade": 9223372036854775808}\n',
    "samples-grade-1e300": b'{"query": "q", "doc": "d", "probabilities": {"1e300": 1}}\n',
    "samples-int64-max": b"q 0 d 9223372036854775807\n",
    "samples-deep": b'{"query": "q", "doc": "d", "grade": 1, "x": ' + _DEEP + b"}\n",
    "samples-surrogate": b'{"query": "q\\ud800", "doc": "d", "grade": 1}\n',
    "samples-latin1": b"q\xe91 0 d\xff 1\nq\xe91 0 d\xff 3\nq\xe91 0 d\xff 3\n",
    "samples-overflow": b'{"query": "q", "doc": "d", "probabilities": {"1": 1e308, "2": 1e308}}\n',
    "qrels-latin1": b"q\xe9 0 a 2\nq1 0 d1 0\n",
    "qrels-blank-id.jsonl": b'{"query": "q 9", "doc": "d1", "rel": 1}\n',
    "qrels-huge-grade": b"q9 0 d9 9223372036854775807\n",
    "nuggets-deep": b'{"qid": "q1", "nuggets": ' + _DEEP + b"}\n",
    "nuggets-list-importance": b'{"qid": "q1", "nuggets": [{"text": "a", "importance": ["vital"], '
                               b'"assignment": "support"}]}\n',
    "run-surrogate.jsonl": b'{"query": "q\\ud800", "doc": "d1", "score": 1}\n',
    "board-a": b"a map all 0.5\nb map all 0.4\nc map all 0.3\n",
    "board-b": b"a map all 0.3\nb map all 0.4\nc map all 0.5\n",
}
# (argv, what the one-line refusal says): exit 2, nothing written
ISSUE_32_REFUSED = [
    ("judges aggregate {samples-blank-id} -o {O}", "query id 'q 1' holds a blank"),
    ("judges aggregate {samples-newline-id} -o {O}", "doc id 'd\\n1' holds a blank, a line end"),
    ("judges aggregate {samples-empty-id} -o {O}", "field query: expected an id (a non-empty string, or an integer), got the string ''"),
    ("judges aggregate {samples-hash-query} -o {O}", "query id '#q' starts with '#'"),
    ("judges aggregate {samples-nul-id} -o {O}", "holds a blank, a line end or a NUL"),
    ("judges aggregate {samples-grade-2^63} -o {O}", "not a grade of magnitude below 2^63"),
    ("judges aggregate {samples-grade-1e300} -o {O} --method mean", "not a grade of magnitude below 2^63"),
    ("judges aggregate {samples-int64-max} -o {O}", "magnitude below 2^63"),
    ("judges aggregate {samples-deep} -o {O}", "nested deeper than 32 levels"),
    ("judges aggregate {samples-surrogate} -o {O}", "lone surrogate"),
    ("judges mix {Q} {qrels-blank-id.jsonl} -o {O}", "query id 'q 9' holds a blank"),
    ("judges mix {Q} {qrels-blank-id.jsonl} -o {O} --provenance {O}.tsv", "query id 'q 9' holds a blank"),
    ("judges mix {Q} {qrels-huge-grade} -o {O}", "beyond 2^53"),
    ("nuggets {nuggets-deep}", "nested deeper than 32 levels"),
    ("nuggets {nuggets-list-importance} --importance-weights vital=1,okay=0.5", "field nuggets[0].importance: expected text such as vital or okay, got a list of 1"),
    ("eval {Q} {run-surrogate.jsonl} -m AP", "lone surrogate"),
    ("run convert {run-surrogate.jsonl} --to trec -o {O}", "lone surrogate"),
    ("eval {Q} {hostile-wide-first-line} -m AP", "wide-first-line:2: score 'abc'"),
    ("eval {Q} {hostile-wide-first-line} -m AP --chunked", "wide-first-line:2: score 'abc'"),
    ("check {Q} {hostile-wide-first-line}", "wide-first-line:2: score 'abc'"),
]


def _issue_32(harness) -> dict[str, str]:
    mapping = _with_hostile(harness)
    for name, content in ISSUE_32_FILES.items():
        path = harness.folder / name
        if not path.exists():
            path.write_bytes(content)
        mapping["{" + name + "}"] = str(path)
    return mapping


@pytest.mark.parametrize("template, says", ISSUE_32_REFUSED, ids=[t for t, _ in ISSUE_32_REFUSED])
def test_issue_32_refused_in_one_line(harness, template, says):
    assert not harness.run("issue 32: refused", template, _issue_32(harness), expect=(2,), twice=False)
    assert says in harness.stderr, harness.stderr


def _json(text: str):
    import json
    return json.loads(text)


def test_issue_32_aggregate_keeps_latin1_ids_byte_for_byte(harness):
    mapping = _issue_32(harness)
    output = harness.out / "latin1.qrels"
    assert not harness.run("issue 32: reads back", f"judges aggregate {{samples-latin1}} -o {output}", mapping,
                           twice=False, expect=(0,))
    assert output.read_bytes() == b"q\xe91 0 d\xff 3\n"   # the mode of 1, 3, 3, in the input's own bytes
    back = rankmeter.read_qrels(output)
    assert back.table.column("query").to_pylist() == [b"q\xe91"] and back.table.column("rel").to_pylist() == [3]


def test_issue_32_probabilities_that_overflow_still_average(harness):
    """p(1) = p(2) = 1e308: normalised they are 1/2 each (their sum overflowed: the mean was 0)."""
    output = harness.out / "overflow.qrels"
    assert not harness.run("issue 32: reads back", f"judges aggregate {{samples-overflow}} -o {output} --method mean",
                           _issue_32(harness), twice=False, expect=(0,))
    assert output.read_bytes() == b"q 0 d 1.5\n"
    assert rankmeter.read_qrels(output, grades="real").table.column("rel").to_pylist() == [1.5]


def test_issue_32_mix_keeps_latin1_ids(harness):
    output = harness.out / "mixed.qrels"
    assert not harness.run("issue 32: reads back", f"judges mix {{Q}} {{qrels-latin1}} -o {output}",
                           _issue_32(harness), twice=False, expect=(0,))
    written = output.read_bytes()
    assert b"q\xe9 0 a 2\n" in written and "q\xe9".encode() not in written
    assert rankmeter.read_qrels(output).table.num_rows == len(written.splitlines())


def test_issue_32_leaderboards_from_boards_as_json(harness):
    """Board B reverses board A: every rank correlation is -1 (it raised UnboundLocalError)."""
    assert not harness.run("issue 32: accepted", "meta leaderboards --board-a {board-a} --board-b {board-b} "
                           "--format json", _issue_32(harness), expect=(0,))
    correlations = _json(harness.stdout)["measures"][0]["correlations"]
    assert correlations["kendall_tau_b"] == -1.0 and correlations["spearman"] == -1.0


def test_issue_32_err_of_a_grade_of_int64_max(harness):
    """q1 ranks its grade 2^63 - 1 doc first: ERR = R = 1 - 2^-(2^63 - 1) = 1.0; q2's grade 1 doc is second
    under g_max = 2^63 - 1: R = 2^-(2^63 - 2), 0 in a double (it raised OverflowError)."""
    assert not harness.run("issue 32: accepted", "eval {hostile-grade-int64-max} {R1} -m ERR -q --format json",
                           _issue_32(harness), expect=(0,))
    rows = _json(harness.stdout)["runs"][0]["per_query"]
    assert [(r["query"], r["ERR"]) for r in rows] == [("q1", 1.0), ("q2", 0.0)]


def test_issue_32_ndcg_exp_of_a_grade_of_int64_max_is_a_number(harness):
    """q1: d1 of grade 2^63 - 1 ranked first, d2 (0) second: nDCG = 1 (it was null, and the mean dropped q1)."""
    assert not harness.run("issue 32: accepted", "eval {hostile-grade-int64-max} {R1} -m nDCG(gain=exp) -q "
                           "--format json", _issue_32(harness), expect=(0,))
    run = _json(harness.stdout)["runs"][0]
    assert [r["nDCG(gain=exp)"] for r in run["per_query"]] == [1.0, pytest.approx(1 / math.log2(3))]
    assert "undefined" not in run or not run["undefined"]


@pytest.mark.parametrize("executor", ["", " --chunked"])
def test_issue_32_tab_and_vt_separators_are_trec_on_every_path(harness, executor):
    """q1 d1 (grade 2) at score 2.5 and d2 (0) at 1.5, both lines TREC: AP 1, two docs retrieved."""
    assert not harness.run("issue 32: accepted", "eval {Q} {hostile-tab-vt-mixed} -m AP -m num_ret --format json"
                           + executor, _issue_32(harness), expect=(0,))
    mean = _json(harness.stdout)["runs"][0]["mean"]
    assert mean["num_ret"] == 2 and mean["AP"] == pytest.approx(1 / 2)  # q1 has d1 and d3 relevant


@pytest.mark.parametrize("executor", ["", " --chunked"])
def test_issue_32_a_bom_after_a_comment_is_part_of_the_id(harness, executor):
    """trec_eval reads the bytes: the first judged query is '\\ufeffq1', so q1 keeps only d2 (grade 0)."""
    assert not harness.run("issue 32: accepted", "eval {hostile-bom-after-comment} {R1} -m num_rel -q --format json"
                           + executor, _issue_32(harness), expect=(0,))
    rows = _json(harness.stdout)["runs"][0]["per_query"]
    assert [(r["query"], r["num_rel"]) for r in rows] == [("q1", 0)]


def test_issue_32_a_query_starting_with_hash_is_a_comment_on_reading(harness):
    """'#q 0 d1 1' is a comment line to trec_eval and to every path here: one query judged, q1."""
    assert not harness.run("issue 32: accepted", "eval {hostile-judged-hash-query} {R1} -m num_rel -q --format json",
                           _issue_32(harness), expect=(0,))
    assert [r["query"] for r in _json(harness.stdout)["runs"][0]["per_query"]] == ["q1"]
