"""`python -m pyhudi ...` runs the CLI, as the `pyhudi` script does."""
import sys

from pyhudi.cli import main

sys.exit(main())
