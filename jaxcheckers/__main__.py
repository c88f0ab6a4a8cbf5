"""`python -m jaxcheckers ...`: the `jaxcheckers` command, for an environment whose scripts
directory is not on PATH."""

from jaxcheckers.cli import main

raise SystemExit(main())
