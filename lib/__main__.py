"""``python -m lib``: the command line (:mod:`lib.book.cli`)."""
import sys

from lib.book.cli import main

sys.exit(main())
