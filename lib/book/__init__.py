"""The book's machinery: papermill runs into ``book/`` and ``runs/`` (:mod:`lib.book.execute`), each chapter's
verdict box and figure captions (:mod:`lib.book.verdicts`, :mod:`lib.book.captions`), staleness
(:mod:`lib.book.fingerprint`), the generated pages (:mod:`lib.book.pages`), the stored paper-scale runs
(:mod:`lib.book.evidence`, :mod:`lib.book.provenance`, :mod:`lib.book.migrate`, :mod:`lib.book.stored_claims`),
the site's build and headless render (:mod:`lib.book.browser`) and the command line (:mod:`lib.book.cli`, run as
``python -m lib``)."""
