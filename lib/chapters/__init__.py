"""One package per paper: ``lib.chapters.<chapter_id>`` (the chapter id with ``_`` for ``-``) holds everything
the chapter ``notebooks/<chapter_id>.ipynb`` needs beyond :mod:`lib.core` and :mod:`lib.engine`. No chapter
package imports another."""
