"""``rankmeter trec_eval`` against the real trec_eval 10.0, byte for byte.

Two parts:

* ``test_heldout_case``: cases under ``golden/heldout/`` whose expected output
  was printed by the real trec_eval 10.0 binary (made with ``--make-heldout``
  below); never skipped.
* ``test_random_against_binary``: seeded random judgments and runs (ties,
  unjudged and negative grades, topics missing from the run, several judgment
  groups and sub-groups) through every flag (-q -c -J -M -l -n -N -m ... -Z,
  -R prefs / qrels_prefs / qrels_jg), run through both programs. Needs the
  binary: set TREC_EVAL_BIN (build it with shared/anchors/build_trec_eval.sh).

At scale: ``python tests/compat/test_trec_eval_diff.py --cases 500`` prints the counts.
trec_eval's rbp reads uninitialised memory on graded judgments (golden/README.md),
so rbp lines are left out of the random comparison (the held-out cases keep them where
their judgments are binary and the binary printed the intended value).
"""
from __future__ import annotations

import os
import random
import shlex
import subprocess
import sys
import tempfile
from io import BytesIO, StringIO
from pathlib import Path

import pytest

from rankmeter.cli.trec_eval import run

HELDOUT = Path(__file__).resolve().parents[1] / "golden" / "heldout"
TREC_EVAL_BIN = os.environ.get("TREC_EVAL_BIN")

QRELS_MEASURES = ["official", "all_trec", "set", "P.5,10", "P.3", "set_F.0.5", "set_F.2", "set_F",
                  "utility.2,-1,0,0", "utility", "yaap", "dcg", "dcg.1=2,2=5", "ideal_dcg", "ideal_dcg.1=3,2=9",
                  "ndcg.1=3,2=9",
                  "iprec_at_recall", "iprec_at_recall..25,.5", "11pt_avg", "11pt_avg..5,.25", "relstring",
                  "relstring.5", "num_rel", "num_ret", "map", "bpref", "infAP", "Rprec_mult.0.5,1.5",
                  "recall.5", "success.1,3", "ndcg_cut.3,5", "map_cut.5", "relative_P.5", "unj.5",
                  "rbp", "rbp_resid", "num_nonrel_judged_ret", "G", "binG", "Rndcg", "ndcg_rel", "gm_map"]
PREFS_MEASURES = ["all_prefs", "prefs", "prefs_pair", "prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret",
                  "prefs_simp_imp"]
JG_MEASURES = ["qrels_jg", "map_avgjg", "P_avgjg.2,5", "Rprec_mult_avgjg.0.5,1.0,2.5"]


def _docs(rng: random.Random, n: int) -> list[str]:
    return [f"d{rng.randrange(40):02d}" for _ in range(n)]


def _run_text(rng: random.Random, qids: list[str]) -> str:
    lines = []
    for q in qids:
        docs = sorted(set(_docs(rng, rng.randrange(1, 14))))
        rng.shuffle(docs)
        for rank, d in enumerate(docs):
            score = rng.choice([1.0, 2.0, 2.5, 3.0]) if rng.random() < 0.5 else round(rng.uniform(0, 5), 3)
            lines.append(f"{q} Q0 {d} {rank + 1} {score} run{rng.randrange(3)}")
    rng.shuffle(lines)
    return "\n".join(lines) + "\n"


def _qrels_rows(rng: random.Random, qids: list[str], grades: list[int]) -> list[tuple[str, str, int]]:
    rows = []
    for q in qids:
        topic = [(q, d, rng.choice(grades)) for d in sorted(set(_docs(rng, rng.randrange(1, 12))))]
        if all(g < 0 for _, _, g in topic):
            # a topic judged only with negative grades makes 10.0 read stale per-topic state
            # (form_res_rels.c), see docs/trec_eval.md
            topic[0] = (q, topic[0][1], 0)
        rows.extend(topic)
    return rows


def make_case(seed: int) -> tuple[dict[str, str], list[str], bool]:
    """(files by name, trec_eval arguments without the two file names, whether rbp is comparable)."""
    rng = random.Random(seed)
    qids = rng.sample(["1", "2", "10", "q3", "Q3", "301"], rng.randrange(1, 5))
    kind = rng.choice(["qrels"] * 5 + ["prefs", "qrels_prefs", "qrels_jg"])
    complete = rng.random() < 0.4
    run_qids = [q for q in qids if not complete or rng.random() < 0.7] or qids[:1]
    extra_qid = ["999"] if rng.random() < 0.2 else []       # in the run only: ignored by trec_eval
    files = {"run": _run_text(rng, run_qids + extra_qid)}
    args: list[str] = []
    graded = False
    if kind == "qrels":
        grades = rng.choice([[0, 1], [0, 1, 2, 3], [-1, 0, 1, 2]])
        graded = max(grades) > 1
        rows = _qrels_rows(rng, qids, grades)
        files["rel"] = "".join(f"{q} 0 {d} {g}\n" for q, d, g in rows)
        args += sum((["-m", m] for m in rng.sample(QRELS_MEASURES, rng.randrange(1, 5))), [])
        if rng.random() < 0.2:
            labels = ["map", "P_5", "num_ret", "num_rel", "bpref", "set_F", "ndcg", "recip_rank"]
            files["z"] = "".join(f"{q} {m} {rng.choice([0.1, 0.3, 5.0])} {rng.choice([0.0, 0.2, 1.5])}\n"
                                 for q in qids for m in labels if rng.random() < 0.7)
            # convert_zscores.c's binary searches start with end = n (one past the last entry) and read
            # past the array (segfault) for a name above every entry: end every list with a sentinel
            files["z"] += "".join(f"{q} ~end 0 1\n" for q in qids if rng.random() < 0.8) + "~~~ ~end 0 1\n"
            args += ["-Z", "z"]
        if rng.random() < 0.3:
            args += [f"-l{rng.choice([0, 1, 2])}"]
        if rng.random() < 0.2:
            args += ["-N", str(rng.choice([0, 50, 1000]))]
    elif kind in ("prefs", "qrels_prefs"):
        args += ["-R", kind]
        lines = []
        for q in qids:
            for jg in range(rng.randrange(1, 4)):
                pool = sorted(set(_docs(rng, rng.randrange(2, 9))))
                level = {d: rng.choice([0.0, 1.0, 2.0, 3.0]) for d in pool}   # one level per doc: consistent
                if kind == "qrels_prefs":
                    lines += [f"{q} j{jg} {d} {int(level[d])}" for d in pool]
                    continue
                for jsg in range(rng.randrange(1, 4)):
                    members = rng.sample(pool, rng.randrange(1, len(pool) + 1))
                    lines += [f"{q} j{jg} s{jsg} {d} {level[d]}" for d in members]
        rng.shuffle(lines)
        files["rel"] = "\n".join(lines) + "\n"
        args += sum((["-m", m] for m in rng.sample(PREFS_MEASURES, rng.randrange(1, 3))), [])
    else:
        args += ["-R", "qrels_jg"]
        rows = [(q, f"g{g}", d, rel) for g in range(rng.randrange(1, 4))
                for q, d, rel in _qrels_rows(rng, qids, [0, 1, 2])]
        files["rel"] = "".join(f"{q} {g} {d} {r}\n" for q, g, d, r in rows)
        args += sum((["-m", m] for m in rng.sample(JG_MEASURES, rng.randrange(1, 3))), [])
        if rng.random() < 0.3:
            args += [f"-l{rng.choice([1, 2])}"]
    for flag, p in (("-q", 0.6), ("-J", 0.25), ("-n", 0.15)):
        if rng.random() < p:
            args.append(flag)
    if complete:
        args.append("-c")
    if rng.random() < 0.25:
        args += ["-M", str(rng.choice([0, 1, 3, 5]))]
    return files, args, not graded


def _write(folder: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as fh:
            fh.write(text)


def _ours(folder: str, args: list[str]) -> tuple[int, bytes]:
    out, err = BytesIO(), StringIO()
    argv = [os.path.join(folder, a) if prev == "-Z" else a for prev, a in zip([""] + args, args)]
    status = run(argv + [os.path.join(folder, "rel"), os.path.join(folder, "run")], out=out, err=err)
    return status, out.getvalue()


def _theirs(binary: str, folder: str, args: list[str]) -> tuple[int, bytes]:
    proc = subprocess.run([binary, *args, "rel", "run"], cwd=folder, capture_output=True, timeout=60)
    return proc.returncode, proc.stdout


def _comparable(text: bytes, rbp_ok: bool) -> bytes:
    """The lines to compare: rbp's only when defined (m_rbp.c reads its uninitialised min/max, which
    random binary judgments showed can flip too, so the random comparison passes rbp_ok=False)."""
    if rbp_ok:
        return text
    return b"".join(x for x in text.splitlines(keepends=True)
                    if x.split(b"\t")[0].strip().lstrip(b"Z") not in (b"rbp", b"rbp_resid"))


def compare(binary: str, seed: int) -> str:
    """'same', 'different' or 'skipped' (trec_eval itself failed) for one seeded case."""
    files, args, rbp_ok = make_case(seed)
    with tempfile.TemporaryDirectory() as folder:
        _write(folder, files)
        status, want = _theirs(binary, folder, args)
        if status != 0:
            return "skipped"
        _, got = _ours(folder, args)
    return "same" if _comparable(got, False) == _comparable(want, False) else "different"


@pytest.mark.skipif(not TREC_EVAL_BIN, reason="set TREC_EVAL_BIN to a trec_eval 10.0 binary "
                    "(bash shared/anchors/build_trec_eval.sh) to compare against it")
@pytest.mark.parametrize("seed", range(60))
def test_random_against_binary(seed: int):
    files, args, rbp_ok = make_case(seed)
    with tempfile.TemporaryDirectory() as folder:
        _write(folder, files)
        status, want = _theirs(TREC_EVAL_BIN, folder, args)
        if status != 0:
            pytest.skip(f"trec_eval 10.0 itself fails on this case (exit {status})")
        ours_status, got = _ours(folder, args)
    assert ours_status == 0
    assert _comparable(got, False) == _comparable(want, False), (args, files)


def _heldout_cases() -> list[str]:
    return sorted(p.name for p in HELDOUT.iterdir() if p.is_dir()) if HELDOUT.exists() else []


@pytest.mark.parametrize("case", _heldout_cases())
def test_heldout_case(case: str):
    folder = HELDOUT / case
    args = shlex.split((folder / "args").read_text())
    status, got = _ours(str(folder), args)
    want = (folder / "expected").read_bytes()
    rbp_ok = (folder / "rbp_ok").exists()
    assert status == 0
    assert _comparable(got, rbp_ok) == _comparable(want, rbp_ok)


def test_heldout_cases_exist():
    """The held-out folder covers every -R format and the flags the brief names."""
    seen = " ".join((HELDOUT / c / "args").read_text() for c in _heldout_cases())
    for flag in ("-q", "-c", "-J", "-M", "-l", "-n", "-N", "-Z", "-R prefs", "-R qrels_prefs", "-R qrels_jg"):
        assert flag in seen, flag


def _make_heldout(binary: str, seeds: list[int]) -> None:
    """Write golden/heldout/<seed>/ with the inputs and trec_eval 10.0's own output."""
    for seed in seeds:
        files, args, rbp_ok = make_case(seed)
        folder = HELDOUT / f"case{seed:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        _write(str(folder), files)
        status, want = _theirs(binary, str(folder), args)
        if status != 0:
            for p in folder.iterdir():
                p.unlink()
            folder.rmdir()
            continue
        (folder / "args").write_text(shlex.join(args) + "\n")
        (folder / "expected").write_bytes(want)
        if rbp_ok:
            (folder / "rbp_ok").write_text("")


GOLDEN = Path(__file__).resolve().parents[1] / "golden"
#: real TREC inputs of the golden folder: (rel file, run file, -R format, measures to draw from)
REAL = [("qrels.test", "results.test", "qrels", QRELS_MEASURES), ("qrels.rel_level", "results.test", "qrels",
         QRELS_MEASURES), ("qrels.test", "results.trunc", "qrels", QRELS_MEASURES),
        ("prefs.test", "prefs.results.test", "prefs", PREFS_MEASURES),
        ("qrels.test", "results.test", "qrels_prefs", PREFS_MEASURES),
        ("qrels.123", "results.test", "qrels_jg", JG_MEASURES)]


def compare_real(binary: str, seed: int) -> str:
    """Random flags on the real TREC files of golden/: 'same', 'different' or 'skipped'."""
    rng = random.Random(seed)
    rel, res, form, pool = rng.choice(REAL)
    args = ["-R", form] + sum((["-m", m] for m in rng.sample(pool, rng.randrange(1, 4))), [])
    for flag, p in (("-q", 0.5), ("-c", 0.4), ("-J", 0.25), ("-n", 0.1)):
        if rng.random() < p:
            args.append(flag)
    if rng.random() < 0.3:
        args += ["-M", str(rng.choice([0, 1, 10, 100]))]
    if rng.random() < 0.3 and form != "prefs":
        args += [f"-l{rng.choice([0, 1, 2])}"]
    proc = subprocess.run([binary, *args, rel, res], cwd=GOLDEN, capture_output=True, timeout=120)
    if proc.returncode != 0:
        return "skipped"
    out, err = BytesIO(), StringIO()
    run(args + [str(GOLDEN / rel), str(GOLDEN / res)], out=out, err=err)
    return "same" if _comparable(out.getvalue(), False) == _comparable(proc.stdout, False) else "different"


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=TREC_EVAL_BIN)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--start", type=int, default=1000)
    ap.add_argument("--make-heldout", nargs="*", type=int)
    ap.add_argument("--real", action="store_true", help="random flags on the real TREC files of golden/")
    a = ap.parse_args()
    if a.make_heldout is not None:
        _make_heldout(a.binary, a.make_heldout)
        sys.exit(0)
    tally: dict[str, list[int]] = {"same": [], "different": [], "skipped": []}
    for seed in range(a.start, a.start + a.cases):
        tally[(compare_real if a.real else compare)(a.binary, seed)].append(seed)
    print({k: len(v) for k, v in tally.items()}, "first different seeds:", tally["different"][:20])
