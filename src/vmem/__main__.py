"""`python -m vmem` behaves exactly like `vmem`."""

from vmem.cli.entry import main

main()
