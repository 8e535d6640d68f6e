"""Freed memory handed back: glibc's malloc_trim is found on Linux, and giving back keeps arrays intact."""
import sys

import numpy as np
import pytest

from rankmeter.engine import memory as _memory


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_give_back_finds_malloc_trim_and_leaves_live_data_alone():
    import platform
    kept = np.arange(1 << 22)
    freed = np.ones(1 << 24)
    del freed
    _memory.give_back()
    if platform.libc_ver()[0] == "glibc":
        assert callable(_memory._malloc_trim())
    assert int(kept[-1]) == (1 << 22) - 1 and int(kept.sum()) == (1 << 22) * ((1 << 22) - 1) // 2
