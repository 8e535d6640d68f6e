"""Compile rankmeter's C on the platforms its wheels are built for, run its Python-free parts there, compare.

    python tools/portability_check.py [--zig "python -m ziglang"] [--keep DIR]

Not run by CI or by the test suite: it needs zig (``pip install ziglang`` into a venv of your own), and runs
what it can of the rest with wine (Debian: ``apt-get install wine64``) and qemu-user
(``apt-get install qemu-user-static``, and ``libc6-arm64-cross`` for aarch64 glibc); a target whose runner is
missing is compiled and reported "not run".

1. Both extensions (rankmeter/io/_trecparse.c, rankmeter/engine/_idops.c) are compiled, not linked, for each
   target with zig's clang and strict warnings, against this Python's headers (Windows: a small LLP64
   pyconfig.h written here, as the Linux one does not fit Windows). Any warning in rankmeter's files counts.
2. tests/ports/driver.c (the number readers of rankmeter/io/_trecnum.h and the id hash of
   rankmeter/engine/_idhash.h, with no Python) is built for each target, statically where it is run under
   an emulator, and run on the same tokens: long numbers (over 4096 characters), exponents, subnormals,
   overflow ("1e400"), hex floats and inf/nan (refused, as float() reads the grammar), negative zero,
   grades ("2.0"), CR ends, ids of every length, and decimal strings one digit off the halfway point between
   two doubles (where a converter that does not round correctly gives the wrong double).
3. Every output is compared line by line with the host C compiler's build (glibc, the reference) and with
   Python: float(), int() and the numpy SipHash oracle (tests/oracles/siphash.py).

Prints one table: per target, the extensions compiled? warnings? the driver run how, and its answers
identical to the reference and to Python (and the first differing token otherwise). Exit status 1 when a
target that was run disagrees or an extension does not compile. macOS (and real Windows, whose UCRT wine
does not reproduce) are built, not run: with ``--keep DIR``, run ``DIR/driver-aarch64-macos DIR/tokens.txt
out.txt`` there and check it here with ``--compare out.txt``.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shlex
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
from decimal import Decimal, getcontext
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from oracles.siphash import siphash13  # noqa: E402

SOURCES = [ROOT / "rankmeter" / "io" / "_trecparse.c", ROOT / "rankmeter" / "engine" / "_idops.c"]
DRIVER = ROOT / "tests" / "ports" / "driver.c"
INCLUDES = [ROOT / "rankmeter" / "engine", ROOT / "rankmeter" / "io"]
# -Wno-missing-field-initializers: the PyModuleDef_HEAD_INIT idiom leaves m_slots and the rest to zero
WARNINGS = ["-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Wno-sign-conversion", "-Wformat=2", "-Wcast-align",
            "-Wdouble-promotion", "-Wvla", "-Wno-unused-parameter", "-Wno-missing-field-initializers"]
GRAMMAR = re.compile(rb"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
INTEGER = re.compile(rb"[+-]?[0-9]+")

#: target, its runner (None: not run here; "native"; or an emulator's command), the wheel it stands for, the
#: driver's extra flags, and whether the extensions are compiled for it (this Python's headers fit 64-bit only)
TARGETS = [
    ("x86_64-linux-gnu", "native", "manylinux x86_64", [], True),
    ("x86_64-linux-musl", "native", "musllinux x86_64", [], True),
    # glibc's aarch64 libraries from Debian's libc6-arm64-cross
    ("aarch64-linux-gnu", "qemu-aarch64-static -L /usr/aarch64-linux-gnu", "manylinux aarch64", [], True),
    ("aarch64-linux-musl", "qemu-aarch64-static", "musllinux aarch64", [], True),
    ("x86_64-windows-gnu", "wine", "win_amd64 (MinGW ABI; the wheel is MSVC)", [], True),
    ("x86_64-macos", None, "macosx x86_64", [], True),
    ("aarch64-macos", None, "macosx arm64", [], True),
    ("s390x-linux-musl", "qemu-s390x-static", "no wheel: a big-endian check", [], True),
    # doubles in x87 registers (FLT_EVAL_METHOD 2), as GCC builds for i386: the fast path's double rounding
    ("x86-linux-musl", "native", "no wheel: i386 x87 source builds", ["-mno-sse", "-mno-sse2"], False),
]

WINDOWS_PYCONFIG = """/* the few pyconfig.h settings Python's headers need on 64-bit Windows (LLP64) */
#ifndef Py_CONFIG_H
#define Py_CONFIG_H
#include <io.h>
#include <stdio.h>
#include <float.h>
#include <basetsd.h>
#define MS_WIN32
#define MS_WINDOWS
#define MS_WIN64
#define NT_THREADS
#define WITH_THREAD
#define LONG_BIT 32
#define WORD_BIT 32
#define PLATFORM "win32"
#define COMPILER "[gcc]"
#define SIZEOF_VOID_P 8
#define SIZEOF_TIME_T 8
#define SIZEOF_OFF_T 4
#define SIZEOF_FPOS_T 8
#define SIZEOF_SIZE_T 8
#define SIZEOF_SHORT 2
#define SIZEOF_INT 4
#define SIZEOF_LONG 4
#define SIZEOF_LONG_LONG 8
#define SIZEOF_DOUBLE 8
#define SIZEOF_FLOAT 4
#define SIZEOF_WCHAR_T 2
#define SIZEOF__BOOL 1
#define SIZEOF_PID_T 4
#define ALIGNOF_SIZE_T 8
#define ALIGNOF_LONG 4
#define HAVE_SSIZE_T 1
#define HAVE_UINTPTR_T 1
#define HAVE_INTPTR_T 1
#define Py_ENABLE_SHARED 1
#define MS_COREDLL
#define HAVE_DECLSPEC_DLL
#define HAVE_COPYSIGN 1
#define HAVE_ROUND 1
#define HAVE_DECL_ISINF 1
#define HAVE_DECL_ISNAN 1
#define STDC_HEADERS 1
#define WITH_DOC_STRINGS 1
#define WITH_PYMALLOC 1
#define HAVE_DYNAMIC_LOADING
#define DOUBLE_IS_LITTLE_ENDIAN_IEEE754 1
typedef int pid_t;
#endif
"""


def tokens() -> list[bytes]:
    """The driver's input: hand-picked cases, then generated ones (fixed seed: every target reads the same)."""
    picked = [
        "0", "-0", "+0", "0.0", "-0.0", "-0e5", "1", "2.0", "2.", ".5", "-.5", "+.5", "2.5", "-2.5", "1.9", "-1.9",
        "1e5", "1E+5", "1e-5", "1e22", "1e23", "-1e22", "9007199254740992", "9007199254740993", "9007199254740995",
        "0.1", "0.12345678901234568", "0.30000000000000004", "1234567890123456789", "12345678901234567890",
        "123456789012345678901234567890", "1.7976931348623157e308", "1.7976931348623158e308",
        "1.7976931348623159e308", "1e308", "1e309", "1e400", "-1e400", "1e-400", "-1e-400", "4.9e-324", "5e-324",
        "2.4703282292062327e-324", "2.4703282292062328e-324", "2.2250738585072011e-308", "2.2250738585072012e-308",
        "2.2250738585072014e-308", "1e-310", "-1e-310", "1e99999999999", "1e-99999999999", "0e99999999999",
        "1e2147483648", "1e-2147483649", "0x1p3", "0X1A", "0x1.8p1", "inf", "-inf", "nan", "Infinity", "1_000",
        "1e", "e5", "1e+", ".", "+", "-", "", "1.5.5", "1e5.5", " 1", "1 ", "++1", "1d5", "\u0661".encode(),
        "0000000000000000000000000001", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "-9223372036854775809", "+3", "-1", "1e3", "3e-2", "-3.7e1", "2.0\r", "1\r", "\r", "q1\r", "#", "#1",
        "doc-\xff", "clueweb09-en0000-00-00000", "a" * 7, "b" * 8, "c" * 9, "d" * 15, "e" * 16, "e" * 17,
    ]
    out = [t if isinstance(t, bytes) else t.encode("latin-1") for t in picked]
    out += [b"1" * 5000, b"0." + b"0" * 5000 + b"1", b"0." + b"1" * 5000, b"1" * 5000 + b"e-5000",
            b"9" * 4097, b"-" + b"9" * 4097 + b"e-4090", b"0" * 4500 + b"1.5", b"0" * 4500 + b"7",
            b"1" + b"0" * 308 + b".0", b"1" + b"0" * 309, b"0." + b"0" * 323 + b"5", b"0." + b"0" * 400 + b"1e400",
            b"4" + b"0" * 4096 + b"e-4096", b"1." + b"0" * 4200 + b"1", b"x" * 4097]
    rng = random.Random(20261128)
    for _ in range(3000):  # random decimals: 1-25 digits, a point anywhere, exponents over the whole range
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
        point = rng.randint(0, len(digits))
        text = digits[:point] + ("." if rng.random() < 0.7 else "") + digits[point:]
        if rng.random() < 0.6:
            text += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randint(0, 340))
        out.append((rng.choice(["", "-", "+"]) + text).encode())
    getcontext().prec = 2000
    for k in range(400):  # halfway between two doubles, exactly and one unit off in the last digit
        bits = rng.getrandbits(63) if k % 4 else rng.getrandbits(52)  # a quarter subnormal
        low = struct.unpack("<d", struct.pack("<Q", bits))[0]
        high = np.nextafter(low, np.inf)
        if not np.isfinite(high):
            continue
        middle = (Decimal(low) + Decimal(float(high))) / 2
        text = format(middle, "e")
        mantissa, exponent = text.split("e")
        ulp = Decimal(1).scaleb(-(len(mantissa.replace(".", "")) - 1) + int(exponent))
        for value in (middle, middle + ulp, middle - ulp):
            out.append(format(value, "e").encode())
    for _ in range(60000):  # the exact fast path: a mantissa up to 2**53 times or over a power of ten up to 22
        out.append(b"%de%d" % (rng.randrange(1, 2 ** 53 + 1), rng.randint(-22, 22)))
    for length in range(0, 40):  # ids of every length, bytes past 0x7f
        out.append(bytes((7 * i + length) % 256 for i in range(length)).replace(b"\n", b"N"))
    assert all(b"\n" not in t for t in out)
    return out


def _int64(text: bytes) -> int | None:
    """int() of [+-]?[0-9]+ within int64 (leading zeros stripped first: int() refuses over 4300 digits)."""
    if not INTEGER.fullmatch(text):
        return None
    sign = -1 if text[:1] == b"-" else 1
    digits = text.lstrip(b"+-").lstrip(b"0") or b"0"
    if len(digits) > 19:
        return None
    value = sign * int(digits)
    return value if -2 ** 63 <= value < 2 ** 63 else None


def expected(items: list[bytes]) -> list[str]:
    """Each token's line as Python reads it: float(), int(), trec_eval's atol truncation, the SipHash oracle."""
    offsets = np.zeros(len(items) + 1, np.int64)
    offsets[1:] = np.cumsum([len(t) for t in items])
    hashes = siphash13(offsets, np.frombuffer(b"".join(items), np.uint8))
    lines = []
    for token, h in zip(items, hashes):
        grammar = GRAMMAR.fullmatch(token) is not None
        double = float(token) if grammar else None
        if double is not None and not np.isfinite(double):
            double = None
        integer = _int64(token)
        truncated = integer
        if truncated is None and grammar:
            lead = re.match(rb"[+-]?([0-9]*)", token)
            truncated = _int64(lead[0]) if lead[1] else 0
        fields = ["1" if grammar else "0"]
        fields.append("1 %016x" % struct.unpack("<Q", struct.pack("<d", double))[0] if double is not None else "0 -")
        fields.append("*")  # the slow path's use is the implementation's business
        for value in (integer, truncated):
            fields.append("1 %016x" % (value & (2 ** 64 - 1)) if value is not None else "0 -")
        fields.append("%016x" % int(h))
        lines.append(" ".join(fields))
    return lines


def compile_extensions(zig: list[str], target: str, work: Path) -> tuple[str, list[str]]:
    """Both extensions compiled (-c) for ``target``: "yes"/"no", and the warnings in rankmeter's files."""
    include = Path(sysconfig.get_paths()["include"])
    if "windows" in target:  # this Python's headers with a Windows pyconfig.h beside them
        include_win = work / "include-windows"
        if not include_win.exists():
            shutil.copytree(include, include_win)
            (include_win / "pyconfig.h").write_text(WINDOWS_PYCONFIG)
        include = include_win
    messages, ok = [], True
    for source in SOURCES:
        done = subprocess.run([*zig, "cc", "-target", target, "-std=c11", "-O2", *WARNINGS, "-DNDEBUG",
                               *[f"-I{d}" for d in INCLUDES], f"-I{include}", "-c", str(source),
                               "-o", str(work / f"{source.stem}-{target}.o")], capture_output=True, text=True)
        ok &= done.returncode == 0
        messages += [line for line in done.stderr.splitlines()
                     if re.search(r"(warning|error):", line) and "rankmeter" in line.split(":")[0]]
        if done.returncode != 0 and not messages:
            messages.append(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed")
    return ("yes" if ok else "no"), messages


def build_driver(command: list[str], output: Path, extra: list[str]) -> str:
    """The driver built with ``command`` (a C compiler); "" or the compiler's complaint."""
    done = subprocess.run([*command, "-std=c11", "-O2", *WARNINGS, *extra, *[f"-I{d}" for d in INCLUDES],
                           str(DRIVER), "-o", str(output)], capture_output=True, text=True)
    warnings = [line for line in done.stderr.splitlines() if re.search(r"(warning|error):", line)]
    if done.returncode != 0:
        return (warnings or [done.stderr.strip() or "failed"])[0]
    return "; ".join(warnings)


def run_driver(runner: list[str], binary: Path, data: Path, output: Path, env: dict) -> str:
    done = subprocess.run([*runner, str(binary), str(data), str(output)], capture_output=True, text=True, env=env,
                          timeout=900)
    if done.returncode != 0 or not output.exists():
        return f"exit {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1][:120]}"
    return ""


def compare(lines: list[str], reference: list[str], items: list[bytes]) -> str:
    """"identical", or how many lines differ and the first token that does."""
    if len(lines) != len(reference):
        return f"{len(lines)} lines for {len(reference)}"
    differ = []
    for i, (got, want) in enumerate(zip(lines, reference)):
        # which path read a number is no answer (an x87 build reads every number by the slow path)
        parts, wanted = got.split(" "), want.split(" ")
        got, want = " ".join(parts[:3] + parts[4:]), " ".join(wanted[:3] + wanted[4:])
        if got != want:
            differ.append(i)
    if not differ:
        return "identical"
    token = items[differ[0]]
    shown = token if len(token) < 40 else token[:20] + b"...(%d bytes)" % len(token)
    return f"{len(differ)} differ, first {shown!r}: {lines[differ[0]]} vs {reference[differ[0]]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--zig", default=None, help='the zig command (default: "zig" on PATH, else '
                                                    '"python -m ziglang" with this Python)')
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"), help="the host C compiler (the reference)")
    parser.add_argument("--keep", default=None, help="keep the builds and outputs in this directory (the macOS "
                                                     "and Windows drivers and tokens.txt can be run on such a machine: "
                                                     "driver tokens.txt out.txt)")
    parser.add_argument("--compare", type=Path, default=None,
                        help="only compare this driver output (made on another machine from --keep's tokens.txt) "
                             "with Python's answers")
    args = parser.parse_args()
    if args.compare:
        items = tokens()
        lines = args.compare.read_bytes().decode("latin-1").splitlines()
        verdict = compare(lines[1:], expected(items), items)
        print(f"{args.compare} ({lines[0][2:]}): {verdict}")
        return 0 if verdict == "identical" else 1
    if args.zig:
        zig = shlex.split(args.zig)
    elif shutil.which("zig"):
        zig = ["zig"]
    else:
        zig = [sys.executable, "-m", "ziglang"]
    if subprocess.run([*zig, "version"], capture_output=True).returncode != 0:
        print(f"no zig ({' '.join(zig)}): pip install ziglang into a venv of your own and pass --zig "
              f"'/that/venv/bin/python -m ziglang'", file=sys.stderr)
        return 2
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="rankmeter-ports-"))
    work.mkdir(parents=True, exist_ok=True)
    items = tokens()
    data = work / "tokens.txt"
    data.write_bytes(b"\n".join(items) + b"\n")
    python = expected(items)
    env = dict(os.environ, WINEDEBUG="-all", WINEPREFIX=str(work / "wineprefix"))

    def outputs(path: Path) -> list[str]:
        return path.read_bytes().decode("latin-1").splitlines()[1:]

    def platform_line(path: Path) -> str:
        lines = path.read_bytes().decode("latin-1").splitlines()
        return lines[0][2:] + f", slow path {sum(line.split(' ')[3] == '1' for line in lines[1:])}"

    rows = []
    # the reference: the host compiler (glibc), and its portable build (words read byte by byte)
    reference_out = work / "out-host.txt"
    for name, extra in (("host cc (glibc): reference", []),
                        ("host cc, -DRM_LITTLE_ENDIAN=0", ["-DRM_LITTLE_ENDIAN=0"])):
        binary = work / ("driver-host" + ("-portable" if extra else ""))
        output = work / (binary.name + ".txt")
        problem = build_driver([args.cc], binary, extra) or run_driver([], binary, data, output, env)
        if problem:
            rows.append((name, "-", "-", "native", problem, "-", "-"))
            continue
        if not extra:
            reference_out = output
        rows.append((name, "-", "-", "native", platform_line(output),
                     compare(outputs(output), outputs(reference_out), items),
                     compare(outputs(output), python, items)))
    if not reference_out.exists():
        print("the host build did not run", file=sys.stderr)
        return 1
    reference = outputs(reference_out)
    failed = False
    for target, runner, wheel, extra, extensions in TARGETS:
        compiled, warnings = compile_extensions(zig, target, work) if extensions else ("-", [])
        failed |= compiled not in ("yes", "-") or bool(warnings)
        binary = work / ("driver-" + target + (".exe" if "windows" in target else ""))
        static = ["-static"] if "linux-musl" in target else []
        problem = build_driver([*zig, "cc", "-target", target, *static], binary, extra)
        how = runner or "not run here"
        if runner and runner != "native":
            command = runner.split()
            needs = [command[0]] + ([command[command.index("-L") + 1]] if "-L" in command else [])  # a sysroot
            missing = [part for part in needs if not (shutil.which(part) or Path(part).is_dir())]
            if missing:
                how, runner = f"not run ({missing[0]} missing)", None
        output = work / f"out-{target}.txt"
        if problem and not binary.exists():
            rows.append((f"{target} [{wheel}]", compiled, len(warnings), how, f"driver not built: {problem}", "-", "-"))
            failed = True
            continue
        if runner is None:
            built = "driver built" + (f" ({problem})" if problem else "")
            rows.append((f"{target} [{wheel}]", compiled, len(warnings), how, built, "-", "-"))
            continue
        command = [] if runner == "native" else runner.split()
        trouble = run_driver(command, binary, data, output, env)
        if trouble:
            rows.append((f"{target} [{wheel}]", compiled, len(warnings), how, trouble, "-", "-"))
            failed = True
            continue
        same, same_python = compare(outputs(output), reference, items), compare(outputs(output), python, items)
        failed |= same != "identical" or same_python != "identical"
        rows.append((f"{target} [{wheel}]", compiled, len(warnings) if extensions else "-", how,
                     platform_line(output), same, same_python))
        for message in warnings:
            print(f"{target}: {message}")
    slow = sum(line.split(" ")[3] == "1" for line in reference)
    print(f"\n{len(items)} tokens ({sum(len(t) > 4096 for t in items)} over 4096 bytes, {slow} read by the slow "
          f"path); builds in {work}\n")
    header = ("target [wheel]", "extensions compile", "warnings", "driver run", "platform", "same as reference",
              "same as Python")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for row in rows:
        print(" | ".join(str(cell) for cell in row))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
