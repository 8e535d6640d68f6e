"""rankmeter trec_eval as a process: what trec_eval refuses, it refuses."""
from __future__ import annotations



def test_a_doc_judged_under_two_iterations_is_a_duplicate_as_in_trec_eval(tmp_path):
    """trec_eval ignores the qrels' second field: "1 0 a 1" and "1 1 a 0" judge a twice (it exits 4 with
    "duplicate docs a"); the evaluate API reads such a file as diversity qrels instead."""
    import subprocess
    import sys

    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n1 1 a 0\n1 0 b 1\n")
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    done = subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", "-m", "map", str(qrels), str(run)],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "judged twice for query 1" in done.stderr
