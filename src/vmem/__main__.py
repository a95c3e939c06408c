"""`python -m vmem` behaves exactly like `vmem`."""

from vmem.cli.app import main

main()
