"""The ``rankmeter`` command line: one registry of commands (:mod:`.app`), one module per command."""
