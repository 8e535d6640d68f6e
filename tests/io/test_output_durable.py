"""The guarded writer is durable: the temporary file's data is fsynced before the rename, the folder after it,
for every output (a baseline and its history above all). The calls are observed in order by recording
os.fsync, os.replace and os.link (no strace needed), and at each fsync what the descriptor holds is read back."""
from __future__ import annotations

import errno
import json
import os
import stat

import pytest

from rankmeter.gate.saved import baseline, save_baseline
from rankmeter.io.output import OutputError, output_file


@pytest.fixture
def calls(monkeypatch):
    """Record every fsync (what the descriptor is: a folder, or a file and its content then), replace and link."""
    seen = []
    real_fsync, real_replace, real_link = os.fsync, os.replace, os.link

    def fsync(fd):
        mode = os.fstat(fd).st_mode
        where = os.readlink(f"/proc/self/fd/{fd}")
        if stat.S_ISDIR(mode):
            seen.append(("fsync folder", where))
        else:
            with open(f"/proc/self/fd/{fd}", "rb") as fh:
                seen.append(("fsync file", where, fh.read()))
        return real_fsync(fd)

    def replace(src, dst, **kw):
        seen.append(("replace", os.fspath(src), os.fspath(dst)))
        return real_replace(src, dst, **kw)

    def link(src, dst, **kw):
        seen.append(("link", os.fspath(src), os.fspath(dst)))
        return real_link(src, dst, **kw)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "link", link)
    return seen


def test_the_data_is_synced_before_the_rename_and_the_folder_after(tmp_path, calls):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with output_file(target) as fh:
        fh.write("new " * 1000)
    assert [c[0] for c in calls] == ["fsync file", "replace", "fsync folder"]
    synced, renamed, folder = calls
    assert synced[1] == renamed[1] and os.path.basename(synced[1]).startswith(".out.txt.")  # the temporary file
    assert synced[2] == ("new " * 1000).encode()        # flushed whole before the fsync
    assert renamed[2] == str(target) and folder[1] == str(tmp_path)
    assert target.read_text() == "new " * 1000


def test_a_new_file_and_a_binary_one_too(tmp_path, calls):
    with output_file(tmp_path / "new.bin", mode="wb") as fh:
        fh.write(b"\x00\x01")
    assert [c[0] for c in calls] == ["fsync file", "replace", "fsync folder"] and calls[0][2] == b"\x00\x01"


def test_no_clobber_writes_link_and_refuse_an_existing_name(tmp_path, calls):
    target = tmp_path / "0001.json"
    with output_file(target, replace=False) as fh:
        fh.write("{}")
    assert [c[0] for c in calls] == ["fsync file", "link", "fsync folder"]
    with pytest.raises(OutputError, match="exists already; nothing was written"):
        with output_file(target, replace=False) as fh:
            fh.write("other")
    assert target.read_text() == "{}" and [p.name for p in tmp_path.iterdir()] == ["0001.json"]  # no temporary left


def test_a_failed_fsync_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "base.json"
    target.write_text("old")

    def broken(fd):
        raise OSError(errno.EIO, "Input/output error")
    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OutputError, match=r"base.json: cannot be written \(Input/output error\); nothing was written"):
        with output_file(target) as fh:
            fh.write("new")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["base.json"]


def test_a_folder_that_cannot_be_synced_is_let_be_only_when_unsupported(tmp_path, monkeypatch):
    real = os.fsync

    def folder_refuses(code):
        def fsync(fd):
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                raise OSError(code, os.strerror(code))
            return real(fd)
        return fsync
    monkeypatch.setattr(os, "fsync", folder_refuses(errno.EINVAL))   # e.g. some FUSE file systems
    with output_file(tmp_path / "a.txt") as fh:
        fh.write("a")
    assert (tmp_path / "a.txt").read_text() == "a"
    monkeypatch.setattr(os, "fsync", folder_refuses(errno.EIO))
    with pytest.raises(OutputError, match="may not survive a power loss"):
        with output_file(tmp_path / "b.txt") as fh:
            fh.write("b")


def test_the_baseline_and_its_history_are_each_synced_then_renamed(cli, tmp_path, calls):
    qrels, path = tmp_path / "qrels.txt", tmp_path / "base.json"
    qrels.write_text("".join(f"q{i} 0 a 1\nq{i} 0 b 0\n" for i in range(6)))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q{i} Q0 a 1 0.9 r\nq{i} Q0 b 2 0.3 r\n" for i in range(6)))
    assert cli("baseline", qrels, run, "-m", "RR", "-o", path).code == 0
    assert [c[0] for c in calls] == ["fsync file", "replace", "fsync folder"] and calls[1][2] == str(path)
    first = path.read_bytes()
    calls.clear()
    done = cli("gate", qrels, run, "--baseline", path, "--update-baseline")
    assert done.code == 0 and "baseline replaced" in done.err, done.err
    kept = tmp_path / "base.history" / "0001.json"
    order = [c[0] for c in calls]
    # the history folder made and synced, the old baseline's copy synced and linked, its folder synced; then the
    # new baseline synced, renamed over the old, the folder synced
    assert order == ["fsync folder", "fsync file", "link", "fsync folder", "fsync file", "replace", "fsync folder"]
    assert calls[0][1] == str(tmp_path) and calls[1][2] == first and calls[2][2] == str(kept)
    assert calls[3][1] == str(kept.parent) and calls[5][2] == str(path) and calls[6][1] == str(tmp_path)
    assert kept.read_bytes() == first and json.loads(path.read_text())["history"][0]["file"] == "base.history/0001.json"


def test_every_guarded_output_syncs(cli, tmp_path, calls):
    """save_baseline, and a fused run written with -o through the same writer."""
    save_baseline(baseline({"q": {"a": 1}, "r": {"a": 1}}, {"q": {"a": 0.5}, "r": {"a": 0.5}}, ["RR"]),
                  tmp_path / "b.json")
    assert [c[0] for c in calls] == ["fsync file", "replace", "fsync folder"]
    calls.clear()
    (tmp_path / "q.txt").write_text("q1 0 a 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 0.5 r\n")
    done = cli("fuse", tmp_path / "r.txt", tmp_path / "r.txt", "-o", tmp_path / "fused.txt")
    assert done.code == 0, done.err
    assert [c[0] for c in calls] == ["fsync file", "replace", "fsync folder"]
    assert calls[1][2] == str(tmp_path / "fused.txt")
