"""``python -m tapete.cli``: the ``tapete`` command."""

from tapete.cli import main

raise SystemExit(main())
