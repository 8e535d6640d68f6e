"""The compiled TREC reader and id operations, which rankmeter needs; everything else is declared in pyproject.toml.

The extensions are not optional: the package has one implementation of its id hash, hash index and id
operations, the compiled one. Wheels carry them built (pyproject.toml's [tool.cibuildwheel]: Linux, macOS and
Windows); a build from source compiles them, and without a working C compiler it stops with a message that
says so and points to the wheels.
"""
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, ExecError, PlatformError

#: what a build without a compiler is told to do instead
WHEELS = ("or install a prebuilt wheel, which needs no compiler: pip install --only-binary rankmeter rankmeter "
          "(wheels: Linux x86_64/aarch64, macOS x86_64/arm64, Windows AMD64; CPython 3.10 to 3.14)")
INSTALL_COMPILER = {"linux": "install one (Debian/Ubuntu: apt-get install gcc python3-dev; Fedora: dnf install gcc "
                             "python3-devel; Alpine: apk add build-base python3-dev)",
                    "darwin": "install one (xcode-select --install)",
                    "win32": "install Microsoft's C++ Build Tools (https://visualstudio.microsoft.com/visual-cpp-build-tools/)"}


class BuildExt(build_ext):
    """build_ext with each compiler's optimisation flag, and a clear stop when there is no C compiler."""

    def build_extensions(self):
        kind = self.compiler.compiler_type
        if kind == "unix":
            command = (getattr(self.compiler, "compiler_so", None) or ["cc"])[0]
            if shutil.which(command) is None:
                self._stop(f"the C compiler {command!r} was not found")
        flags = ["/O2"] if kind == "msvc" else ["-O3"]
        for extension in self.extensions:
            extension.extra_compile_args = flags + list(extension.extra_compile_args or [])
        try:
            super().build_extensions()
        except PlatformError as error:  # MSVC: no Build Tools found
            self._stop(f"no C compiler was found ({error})")
        except (CCompilerError, ExecError) as error:
            raise CCompilerError(f"rankmeter: compiling its C extensions failed ({error}; the compiler's messages "
                                 f"are above); {WHEELS}") from error

    @staticmethod
    def _stop(what: str):
        advice = INSTALL_COMPILER.get(sys.platform, "install one")
        raise PlatformError(f"rankmeter: building from source compiles its C extensions (rankmeter/io/_trecparse.c, "
                            f"rankmeter/engine/_idops.c), and {what}: {advice}, set CC to it if it is not on PATH, "
                            f"{WHEELS}")


# both hash ids with rankmeter/engine/_idhash.h (the engine's hash, bit for bit); the reader's number readers are
# rankmeter/io/_trecnum.h (plain C: tests/ports/driver.c runs them on other platforms, tools/portability_check.py)
setup(cmdclass={"build_ext": BuildExt},
      ext_modules=[Extension("rankmeter.io._trecparse", ["rankmeter/io/_trecparse.c"],
                             include_dirs=["rankmeter/engine"],
                             depends=["rankmeter/engine/_idhash.h", "rankmeter/io/_trecnum.h"]),
                   Extension("rankmeter.engine._idops", ["rankmeter/engine/_idops.c"],
                             include_dirs=["rankmeter/engine"], depends=["rankmeter/engine/_idhash.h"])])
