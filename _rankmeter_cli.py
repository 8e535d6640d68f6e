"""The ``rankmeter`` console script: Ctrl-C handled before the package (numpy, pyarrow) is even imported.

A top-level module so that an interrupt while rankmeter loads still ends with
one line and status 130, never a traceback.
"""
import os
import signal
import sys


def main() -> None:
    def interrupted(signum=None, frame=None):
        try:
            sys.stderr.write("rankmeter: interrupted\n")
            sys.stderr.flush()
        finally:
            os._exit(130)

    signal.signal(signal.SIGINT, interrupted)  # until the CLI installs its own handling
    try:
        from rankmeter.cli.app import entry
    except KeyboardInterrupt:
        interrupted()
    entry()


if __name__ == "__main__":
    main()
