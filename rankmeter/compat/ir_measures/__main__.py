"""``python -m rankmeter.compat.ir_measures QRELS RUN MEASURE...``: ir_measures' command line."""
import sys

from rankmeter.compat.ir_measures.cli import main_cli

sys.exit(main_cli())
