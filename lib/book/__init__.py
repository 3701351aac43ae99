"""The book's machinery: papermill runs into ``book/`` and ``runs/`` (:mod:`lib.book.execute`), staleness
(:mod:`lib.book.fingerprint`), the generated pages (:mod:`lib.book.pages`) and the command line
(:mod:`lib.book.cli`, run as ``python -m lib``)."""
