"""`python -m pyhudi.cli ...`, as the `pyhudi` script."""
import sys

from pyhudi.cli import main

sys.exit(main())
