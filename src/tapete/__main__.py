"""``python -m tapete``: the ``tapete`` command."""

from tapete.cli import main

raise SystemExit(main())
