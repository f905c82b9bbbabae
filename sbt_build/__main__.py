"""python -m sbt_build [SBT COMMAND ...]: sbt in batch mode on the repository's build.sbt (default:
connector/package connector/Test/package), its launcher fetched with Maven and its caches in .cache/sbt."""
import sys

from sbt_build import main

sys.exit(main())
