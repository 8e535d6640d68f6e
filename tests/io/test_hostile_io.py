"""Careless hands and hostile input at the readers and the writer (issue 22).

One guarded output (every file read is never written over), JSON that once
crashed the process, ids that are huge or hold terminal controls.
"""
from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys

import pytest

import rankmeter
from rankmeter.io.dicts import run_from_dict
from oracles import trec_lines as oracle
from rankmeter.errors import InputError, ParameterError
from rankmeter.io.inputs import forget_inputs, recorded_inputs
from rankmeter.io.output import OutputError, check_output, output_file


def _digest(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def qrels_file(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"q1 0 d1 1\nq1 0 d2 0\n")
    return path


# ------------------------------------------------------------------ one guarded output
@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "relative"])
def test_a_file_read_is_never_written_over(qrels_file, tmp_path, monkeypatch, how):
    rankmeter.read_qrels(qrels_file)  # read only: nobody tells the writer about it
    before = _digest(qrels_file)
    target = {"same": qrels_file, "symlink": tmp_path / "link", "hardlink": tmp_path / "hard",
              "relative": "qrels.txt"}[how]
    if how == "symlink":
        os.symlink(qrels_file, target)
    elif how == "hardlink":
        os.link(qrels_file, target)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParameterError) as caught:
        with output_file(target) as out:
            out.write("overwritten\n")
    message = str(caught.value)
    assert str(target) in message and str(qrels_file) in message  # names the output and the input
    assert isinstance(caught.value, OutputError)
    assert _digest(qrels_file) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_explicit_inputs_still_refused_and_other_files_written(tmp_path):
    never_read = tmp_path / "never-read.txt"
    never_read.write_text("keep\n")
    with pytest.raises(ParameterError, match="one of the inputs"):
        check_output(never_read, inputs=[str(never_read)])
    fresh = tmp_path / "fresh.txt"
    with output_file(fresh) as out:
        out.write("ok\n")
    assert fresh.read_text() == "ok\n"


def test_every_reader_records_its_file(tmp_path):
    """The bytes path, the big-file path (a big TREC file read as it streams in), stdin from a file and file
    objects."""
    small, big = tmp_path / "small.txt", tmp_path / "big.txt"
    small.write_bytes(b"q1 Q0 d1 1 2.5 t\n")
    from rankmeter.io.compiled import FILE_MIN_BYTES
    line = b"q1 Q0 d%08d 1 2.5 t\n"
    big.write_bytes(b"".join(line % i for i in range(FILE_MIN_BYTES // len(line % 0) + 10)))
    by_object = tmp_path / "object.txt"
    by_object.write_bytes(b"q1 0 d1 1\n")
    rankmeter.read_run(small)
    rankmeter.read_run(str(big))
    with open(by_object, "rb") as fh:
        rankmeter.read_qrels(fh)
    read = recorded_inputs()
    for path in (small, big, by_object):
        assert os.path.realpath(path) in read
        with pytest.raises(ParameterError):
            check_output(path)


def test_stdin_redirected_from_a_file_is_guarded_in_the_cli(tmp_path):
    """``rankmeter run convert - -o qrels`` with stdin from that very file: refused, file intact."""
    run = tmp_path / "run.txt"
    run.write_bytes(b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\n")
    before = _digest(run)
    with open(run, "rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "rankmeter", "run", "convert", "-", "--to", "trec",
                               "-o", str(run)], stdin=stdin, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "one of the inputs" in done.stderr
    assert _digest(run) == before


def test_forgetting_inputs_allows_writing_again(qrels_file):
    rankmeter.read_qrels(qrels_file)
    forget_inputs()
    with output_file(qrels_file) as out:
        out.write("q1 0 d1 0\n")
    assert qrels_file.read_text() == "q1 0 d1 0\n"


# ------------------------------------------------------------------ JSON that crashed the process
@pytest.mark.parametrize("content, line", [
    (b"null\n", 1),                                               # Arrow 26: segmentation fault
    (b'{"query": "q1", "doc": "d1", "score": 1}\nnull\n', 2),
    (b'{"query": "q1", "doc": "d1", "score": 1}\n[1, 2]\n', 2),
    (b"  true\n", 1),
])
def test_a_json_line_that_is_not_an_object_is_named(tmp_path, content, line):
    path = tmp_path / "run.jsonl"
    path.write_bytes(content)
    # in a child: a crash (exit 139) must show as a failure of this test, not kill pytest
    code = (f"import rankmeter\ntry:\n    rankmeter.read_run({str(path)!r})\n"
            "except rankmeter.InputError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"run.jsonl:{line}: a JSON " in done.stdout and "not an object" in done.stdout


@pytest.mark.parametrize("depth", [100, 100_000])
@pytest.mark.parametrize("shape", ["document", "inside a record"])
def test_json_nested_deep_is_a_clean_input_error(tmp_path, depth, shape):
    nested = "[" * depth + "]" * depth
    text = nested if shape == "document" else '{"query": "q1", "doc": "d1", "score": 1, "x": %s}' % nested
    path = tmp_path / "deep.jsonl"
    path.write_text(text + "\n")
    code = (f"import rankmeter\ntry:\n    rankmeter.read_run({str(path)!r})\n"
            "except rankmeter.InputError as e:\n    print('InputError', e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    # the one reader bounds nesting at 32 levels, in an unused extra key too; a file of one line names line 1
    assert done.stdout.startswith("InputError") and "deep.jsonl:1: " in done.stdout
    if depth == 100:   # Python parses it: the field where the bound is passed is named
        field = "field x[0][0]" if shape == "inside a record" else "field [0][0]"
        assert field in done.stdout and "expected at most 32 levels of nested lists and objects" in done.stdout
    else:              # deeper than Python parses
        assert "nested deeper than 32 levels of lists and objects" in done.stdout


# ------------------------------------------------------------------ bounded memory on hostile input
_MEMORY_LIMIT_MB = 400


def _bomb(path, kind: str, member: bytes, copies: int) -> None:
    """``copies`` times ``member`` compressed: concatenated streams, which every one of these formats allows."""
    import bz2
    import gzip
    import lzma

    if kind == "zstd":
        import pyarrow as pa
        with pa.CompressedOutputStream(str(path), "zstd") as out:
            for _ in range(copies):
                out.write(member)
        return
    compress = {"gzip": lambda b: gzip.compress(b, 1), "bz2": bz2.compress, "xz": lzma.compress}[kind]
    packed = compress(member)
    with open(path, "wb") as out:
        for _ in range(copies):
            out.write(packed)


def _capped() -> None:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _peak_of_reading(path, *, as_run: bool = False, streamed: bool = False) -> tuple[str, float]:
    """In a child: read ``path``; (its error message, the child's peak resident memory in MB)."""
    reader = ("from rankmeter.io.source import open_stream\nstream, _ = open_stream(path)\n"
              "while stream.read(1 << 20): pass\n") if streamed else \
        f"rankmeter.{'read_run' if as_run else 'read_qrels'}(path)\n"
    code = ("import resource, sys, rankmeter\npath = sys.argv[1]\ntry:\n"
            + "".join("    " + line + "\n" for line in reader.splitlines())
            + "    print('read without error')\nexcept rankmeter.InputError as exc:\n    print(exc)\n"
            # the peak of this program's own memory (VmHWM: reset at exec; ru_maxrss would keep the peak
            # of the forked copy of a big parent, e.g. the whole test session, from before exec)
            "print(int(open('/proc/self/status').read().split('VmHWM:')[1].split()[0]) / 1024)\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300,
                          preexec_fn=_capped)  # a regression fails this test, not the machine
    assert done.returncode == 0, done.stderr[-2000:]
    message, peak = done.stdout.strip().rsplit("\n", 1)
    return message, float(peak)


@pytest.mark.parametrize("kind", ["gzip", "bz2", "xz", "zstd"])
def test_a_compression_bomb_is_refused_in_bounded_memory(tmp_path, kind):
    """1 GiB of zeros: refused after the first block (it peaked at 2.1 GB when decompressed whole)."""
    path = tmp_path / "bomb"
    _bomb(path, kind, bytes(16 << 20), 64)
    assert path.stat().st_size < 8 << 20
    message, peak = _peak_of_reading(path)
    assert "binary data (a NUL byte)" in message and "bomb:1:" in message
    assert peak < _MEMORY_LIMIT_MB, f"{kind}: peak {peak:.0f} MB"


def test_text_then_a_bomb_is_refused_at_its_line(tmp_path):
    path = tmp_path / "bomb.gz"
    import gzip
    with open(path, "wb") as out:
        out.write(gzip.compress(b"q1 Q0 d1 1 2.5 t\n" * 3))
        packed = gzip.compress(bytes(16 << 20), 1)
        for _ in range(64):
            out.write(packed)
    message, peak = _peak_of_reading(path, as_run=True)
    assert "bomb.gz:4: binary data" in message
    assert peak < _MEMORY_LIMIT_MB


def test_one_endless_line_is_refused_in_bounded_memory(tmp_path):
    path = tmp_path / "line.gz"
    _bomb(path, "gzip", b"a" * (16 << 20), 64)
    message, peak = _peak_of_reading(path, as_run=True)
    assert "line 1 is longer than 64 MiB" in message
    assert peak < _MEMORY_LIMIT_MB


def test_the_streamed_reader_refuses_a_bomb_at_its_first_block(tmp_path):
    path = tmp_path / "bomb.gz"
    _bomb(path, "gzip", bytes(16 << 20), 64)
    message, peak = _peak_of_reading(path, streamed=True)
    assert "binary data (a NUL byte)" in message
    assert peak < _MEMORY_LIMIT_MB


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_endless_devices_are_refused_in_bounded_memory(device):
    message, peak = _peak_of_reading(device, as_run=True)
    assert message.startswith(f"{device}:") and "binary data" in message
    assert peak < _MEMORY_LIMIT_MB


@pytest.mark.parametrize("content", [b"BZh91A", b"BZh9", b"BZh91AY&S"])
def test_a_truncated_bzip2_header_is_no_text_run(tmp_path, content):
    path = tmp_path / "run"
    path.write_bytes(content)
    with pytest.raises(InputError, match="the bz2 data is truncated"):
        rankmeter.read_run(path)


def test_text_that_starts_like_bzip2_is_still_text(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"BZh9 Q0 d1 1 2.5 t\n")
    assert len(rankmeter.read_run(path)) == 1


# ------------------------------------------------------------------ huge and hostile ids in messages
_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_shown_id_cuts_and_escapes():
    from rankmeter.errors import shown_id
    assert shown_id(b"q" * 1_000_000) == "q" * 60 + "… (1000000 bytes)"
    assert shown_id("é" * 100).endswith("… (200 bytes)")  # the length in bytes, as ids are compared
    shown = shown_id("a" + _BIDI + "\x1b[2J\n")
    assert shown.isprintable() and not set(_BIDI) & set(shown)
    assert shown == "a\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\x1b[2J\\n"
    assert shown_id(b"d\xff1") == "d\\xff1"


def test_a_huge_id_is_cut_in_reader_messages():
    huge = "q" * 1_000_000
    with pytest.raises(InputError) as caught:
        run_from_dict({huge: {"d1": float("nan")}})
    assert len(str(caught.value)) < 400 and "(1000000 bytes)" in str(caught.value)


def test_bidi_controls_never_reach_a_message_raw(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 1.5\u202e t\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        rankmeter.read_run(path)
    assert not set(_BIDI) & set(str(caught.value)) and "\\u202e" in str(caught.value)
    with pytest.raises(InputError) as caught:
        run_from_dict({"q\u202e1": {"d1": "high"}})
    assert not set(_BIDI) & set(str(caught.value))


def test_text_tables_cut_huge_ids_and_escape_bidi():
    from rankmeter.report.text import print_results
    qrels = {"q\u202e1": {"d1": 1}, "q" * 3000: {"d1": 1}}
    run = {"q\u202e1": {"d1": 1.0}, "q" * 3000: {"d1": 1.0}}
    results = rankmeter.evaluate(qrels, run, ["AP"])
    out = io.StringIO()
    print_results([results], ["t" * 3000], per_query=True, out=out)  # a 3,000-character run name
    text = out.getvalue()
    assert not set(_BIDI) & set(text) and "q\\u202e1" in text
    assert max(len(line) for line in text.splitlines()) < 200
    assert "(3000 bytes)" in text


def test_interactions_with_a_null_line_are_an_input_error(tmp_path):
    from rankmeter.io.interactions import read_interactions
    path = tmp_path / "recs.jsonl"
    path.write_bytes(b"null\n")
    code = (f"from rankmeter.io.interactions import read_interactions\nimport rankmeter\ntry:\n"
            f"    read_interactions({str(path)!r})\nexcept rankmeter.InputError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "recs.jsonl:1: a JSON null, not an object" in done.stdout
    assert read_interactions  # imported in the parent too: the module exists


# ------------------------------------------------------------------ run convert with ids that are not UTF-8
def test_parquet_keeps_ids_that_are_not_utf8_byte_for_byte(tmp_path):
    from rankmeter.core.ranked_runs import write_run
    source = tmp_path / "run.txt"
    source.write_bytes(b"q\xe91 Q0 d\xff1 1 2.5 t\nq\xe91 Q0 d2 2 1.5 t\n")
    run = rankmeter.read_run(source)
    write_run(run, tmp_path / "run.parquet")
    back = rankmeter.read_run(tmp_path / "run.parquet")
    assert back.table.column("query").to_pylist() == [b"q\xe91", b"q\xe91"]
    assert back.table.column("doc").to_pylist() == [b"d\xff1", b"d2"]
    assert back.table.column("score").to_pylist() == [2.5, 1.5]


def test_json_lines_refuses_ids_that_are_not_utf8_and_writes_nothing(tmp_path):
    from rankmeter.core.ranked_runs import write_run
    source = tmp_path / "run.txt"
    source.write_bytes(b"q1 Q0 d\xff1 1 2.5 t\n")
    with pytest.raises(ParameterError, match=r"doc id d\\xff1 is not UTF-8"):
        write_run(rankmeter.read_run(source), tmp_path / "run.jsonl")
    assert not (tmp_path / "run.jsonl").exists()


def test_a_reused_inode_still_guards_the_file_now_read(tmp_path):
    """A file read, deleted, and its inode number given to a new input: the new one is still refused."""
    import os

    from rankmeter.io.inputs import open_input, recorded_as
    from rankmeter.io.output import check_output
    old = tmp_path / "old.txt"
    old.write_text("q 0 d 1\n")
    with open_input(old) as fh:
        fh.read()
    inode = os.stat(old).st_ino
    os.remove(old)
    new = tmp_path / "new.txt"
    new.write_text("q 0 d 1\n")
    with open_input(new) as fh:
        fh.read()
    link = tmp_path / "hard-link"
    os.link(new, link)
    assert recorded_as(link) == str(new.resolve())  # whether or not the system reused the number
    with pytest.raises(Exception, match="is one of the inputs"):
        check_output(link)
    assert os.stat(new).st_ino == os.stat(link).st_ino and inode >= 0


# ------------------------------------------------------------------ issue 32: bounded memory on every shape
_PEAK_LIMIT_MB = 500
_LAUNCH = (  # a small parent: the child's ru_maxrss is then its own peak, not the forked test session's
    "import resource, subprocess, sys\n"
    "def cap():\n"
    "    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, preexec_fn=cap)\n"
    "sys.stderr.buffer.write(done.stderr)\n"
    "sys.stdout.buffer.write(done.stdout + b'\\n')\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(done.returncode, peak / (1 << 20) if sys.platform == 'darwin' else peak / 1024)\n")


def peak_of(argv: list[str], *, python: str | None = None) -> tuple[int, str, float, str]:
    """(exit status, standard error, peak resident memory in MB, standard output) of ``rankmeter argv`` (or of
    the Python code ``python``) in a child process whose address space is capped at 3 GiB."""
    command = [sys.executable, "-c", python] if python else [sys.executable, "-m", "rankmeter", *argv]
    done = subprocess.run([sys.executable, "-c", _LAUNCH, *command], capture_output=True, timeout=600)
    stdout, _, last = done.stdout.decode("utf-8", "replace").rstrip("\n").rpartition("\n")
    code, peak = last.split()
    return int(code), done.stderr.decode("utf-8", "replace"), float(peak), stdout


_WIDE = b" x" * 3_000_000   # 3M extra fields on one 6 MB line (extra run fields are allowed)
_WIDE_CASES = {
    "wide first line, bad score on line 2": (b"q1 Q0 d1 1 2.5 t" + _WIDE + b"\nq1 Q0 d2 2 abc t\n",
                                             "run:2: score 'abc'"),
    "wide first line, valid": (b"q1 Q0 d1 1 2.5 t" + _WIDE + b"\nq1 Q0 d2 2 1.5 t\n", None),
    "wide second line, valid": (b"q1 Q0 d0 1 3 t\nq1 Q0 d1 2 2.5 t" + _WIDE + b"\nq1 Q0 d2 3 1.5 t\n", None),
    "wide three-field line": (b"q1 d1 2.5" + _WIDE + b"\nq1 d2 1.5\n", "run:1: score 'x'"),
    "wide TSV line": (b"query\tdoc\tscore\nq1\td1\t2.5" + _WIDE.replace(b" ", b"\t") + b"\n",
                      "run:2: 3000003 fields where the header line has 3"),
    "wide JSON line": (b'{"query": "q1", "doc": "d1", "score": 2.5' + b"".join(b', "k%d": 1' % i for i in
                                                                               range(300_000)) + b"}\n", None),
}


@pytest.mark.parametrize("case", list(_WIDE_CASES))
def test_a_wide_line_is_read_in_bounded_memory(tmp_path, case):
    """It aborted with std::bad_alloc (exit 134) after 5.4 GB: Arrow's schema had a column per field."""
    content, says = _WIDE_CASES[case]
    (tmp_path / "q").write_bytes(b"q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "run").write_bytes(content)
    code, stderr, peak, stdout = peak_of(["eval", str(tmp_path / "q"), str(tmp_path / "run"), "-m", "AP"])
    print(f"{case}: peak {peak:.0f} MB")
    if says is None:
        assert code == 0, stderr
    else:
        assert code == 2 and says in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert peak < _PEAK_LIMIT_MB, f"{case}: peak {peak:.0f} MB"


def test_a_wide_qrels_line_is_refused_in_bounded_memory(tmp_path):
    (tmp_path / "q").write_bytes(b"q1 0 d1 1" + _WIDE + b"\nq1 0 d2 0\n")
    (tmp_path / "run").write_bytes(b"q1 Q0 d1 1 2.5 t\n")
    code, stderr, peak, stdout = peak_of(["eval", str(tmp_path / "q"), str(tmp_path / "run"), "-m", "AP"])
    assert code == 2 and "q:1: 3000004 fields where a qrels line has exactly 4" in stderr, stderr
    assert peak < _PEAK_LIMIT_MB, peak


@pytest.mark.parametrize("member", ["one-letter lines", "valid run lines"])
@pytest.mark.parametrize("kind", ["gzip", "bz2", "xz", "zstd"])
def test_a_text_bomb_is_refused_in_bounded_memory(tmp_path, kind, member):
    """4 GiB of text from at most 27 MB (gzip at level 1: 160-230 times; the others thousands): refused once it
    expands more than 100 times (a 468 KB xz of one-letter lines reached 3-6 GB before "out of memory")."""
    text = b"a\n" * (8 << 20) if member == "one-letter lines" else b"q1 Q0 d1 1 2.5 t\n" * (1 << 20)
    path = tmp_path / "bomb"
    _bomb(path, kind, text, (4 << 30) // len(text))
    (tmp_path / "q").write_bytes(b"q1 0 d1 1\n")
    code, stderr, peak, stdout = peak_of(["eval", str(tmp_path / "q"), str(path), "-m", "AP"])
    print(f"{kind} bomb of {member} ({path.stat().st_size} bytes): peak {peak:.0f} MB")
    assert code == 2 and "a compression bomb" in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert peak < _PEAK_LIMIT_MB, f"{kind}: peak {peak:.0f} MB"


def test_an_honest_compressed_run_is_not_a_bomb(tmp_path):
    """Above 64 MiB of text at a real file's ratio (random doc ids: about 4x in gzip): read, never refused."""
    import gzip
    import random
    pick = random.Random(5)
    lines = b"".join(b"%d Q0 doc-%010d %d %.6f bm25\n" % (q, d, k, 30 - k / 1000) for q in range(300)
                     for k, d in enumerate(pick.sample(range(10 ** 10), 8000), 1))
    assert len(lines) > 64 << 20
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(lines, 6))
    (tmp_path / "q").write_bytes(b"1 0 doc-0000000001 1\n")
    code, stderr, peak, stdout = peak_of(["eval", str(tmp_path / "q"), str(path), "-m", "num_ret", "--format", "json"])
    assert code == 0 and '"num_ret": 8000' in stdout, stderr


def test_judges_aggregate_memory_is_linear(tmp_path):
    """5,000 probability lines each listing a grade of its own (388 KB): a lines x grades table peaked at
    1.5 GB; one entry per grade listed stays near the interpreter's own size."""
    import json
    path = tmp_path / "probs.jsonl"
    path.write_text("".join(json.dumps({"query": f"q{i % 50}", "doc": f"d{i}", "probabilities":
                                        {str(i * 1.5): 0.5, "1": 0.5}}) + "\n" for i in range(5000)))
    code, stderr, peak, stdout = peak_of(["judges", "aggregate", str(path), "-o", str(tmp_path / "out"), "--method", "mean"])
    assert code == 0, stderr
    assert peak < 300, peak
    lines = (tmp_path / "out").read_bytes().splitlines()
    assert len(lines) == 5000 and b"q0 0 d100 75.5" in lines  # (150 + 1) / 2


def test_num_relevant_far_beyond_the_candidates_is_refused_not_allocated():
    code, stderr, peak, stdout = peak_of([], python=(
        "import numpy as np, rankmeter.tensor as rt\n"
        "rt.evaluate(np.array([[1.0, 0.5]]), np.array([[1, 0]]), ['AP'], num_relevant=np.array([1e9]))\n"))
    assert code == 1 and "InputError" in stderr and "7.45 GiB" in stderr, stderr[-500:]
    assert peak < _PEAK_LIMIT_MB, peak


# ------------------------------------------------------------------ issue 32: the same reading on every path
_BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("where", ["second BOM", "after a comment", "after a blank line", "at byte 0 only"])
@pytest.mark.parametrize("layout", ["spaces", "tabs"])
def test_a_bom_not_at_byte_0_is_part_of_the_id_on_every_path(tmp_path, where, layout):
    """trec_eval reads bytes: only the BOM at byte 0 is dropped (an encoding mark); any other is in the id."""
    line = b"q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 0.5 t\n"
    if layout == "tabs":
        line = line.replace(b" ", b"\t")
    prefix = {"second BOM": _BOM + _BOM, "after a comment": b"# c\n" + _BOM, "after a blank line": b"\n" + _BOM,
              "at byte 0 only": _BOM}[where]
    expected = [b"q1", b"q1"] if where == "at byte 0 only" else [_BOM + b"q1", b"q1"]
    path = tmp_path / "run"
    path.write_bytes(prefix + line)
    assert rankmeter.read_run(path).ids("query").to_pylist() == expected
    with open(path, "rb") as fh:
        assert rankmeter.read_run(fh).ids("query").to_pylist() == expected
    assert oracle.run_from_bytes((prefix + line)[3 if prefix.startswith(_BOM) else 0:], "x").ids(
        "query").to_pylist() == expected  # the line-by-line oracle reads them so too


def test_a_bom_at_a_line_start_of_a_big_file_stays_in_the_id(tmp_path):
    """A big file is read in blocks; a block starting with a BOM keeps it in the id."""
    from rankmeter.io.compiled import FILE_MIN_BYTES
    line = b"q1 Q0 d%08d 1 2.5 t\n"
    count = FILE_MIN_BYTES // len(line % 0) + 10
    body = b"".join(line % i for i in range(count))
    half = body.index(b"\n", len(body) // 2) + 1
    path = tmp_path / "big.run"
    path.write_bytes(body[:half] + _BOM + body[half:])
    run = rankmeter.read_run(path)
    queries = run.ids("query").to_pylist()
    assert queries.count(_BOM + b"q1") == 1 and len(queries) == count


@pytest.mark.parametrize("how", ["file", "gzip", "stdin"])
def test_a_control_byte_in_the_first_10_bytes_is_judged_alike_from_every_source(tmp_path, how):
    """One control byte among 1 KB of text is under the 1% that makes text binary, wherever it is read from
    (standard input judged the 10 bytes it peeked: 10%)."""
    import gzip
    qrels = b"q\x011 0 d1 1\n" + b"".join(b"q2 0 d%d 1\n" % i for i in range(100))
    path = tmp_path / "qrels"
    path.write_bytes(gzip.compress(qrels) if how == "gzip" else qrels)
    (tmp_path / "run").write_bytes(b"q2 Q0 d1 1 1 t\n")
    argv = ["eval", "-" if how == "stdin" else str(path), str(tmp_path / "run"), "-m", "num_rel", "--format", "json"]
    done = subprocess.run([sys.executable, "-m", "rankmeter", *argv], input=qrels if how == "stdin" else b"",
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b'"num_rel": 100' in done.stdout


def test_chunked_line_numbers_after_lone_cr_line_ends(tmp_path):
    """60 lines ended by CR alone, 57 by LF, then a bad score on line 118: every executor names line 118
    (the streamed one counted LFs only: line 59)."""
    lines = [b"q%d Q0 d%d %d %d t" % (q, k, k, 10 - k) for q in range(1, 40) for k in range(1, 4)]
    path = tmp_path / "run"
    path.write_bytes(b"\r".join(lines[:60]) + b"\n" + b"\n".join(lines[60:]) + b"\nq99 Q0 dx 1 abc t\n")
    (tmp_path / "q").write_bytes(b"q1 0 d1 1\n")
    for executor in ("memory", "streamed"):
        with pytest.raises(InputError, match=r"run:118: score 'abc'"):
            rankmeter.evaluate(tmp_path / "q", path, ["AP"], executor=executor, chunk_bytes=64)


def test_tab_and_vt_separated_trec_lines_are_no_tsv_header():
    from rankmeter.io.formats import detect
    data = b"q1\tQ0\x0bd1\x0b1\x0b2.5\x0bt\nq1 Q0 d2\t2\t1.5 t\n"
    assert detect(data, "run", "auto") == ("trec", False)
    assert detect(b"query-id\tcorpus-id\tscore\nq1\td1\t1\n", "run", "auto") == ("tsv", True)  # a real header
