"""`pyhudi timeline-server`: Hudi's timeline server (RFC-03) for a table, as a JVM of its own (not Spark)."""
from __future__ import annotations

import os
import re
import shutil
import sys

from rich.console import Console

from pyhudi.cli import common
from pyhudi.errors import HudiError


def cmd_timeline_server(args, console: Console) -> int:
    """Replaces this process with the JVM of io.hudimeta.view.TimelineServer, so Ctrl-C and SIGTERM (or
    SIGKILL) reach the server itself and no orphan keeps serving."""
    from pyhudi import build  # lazily: only this command needs the connector jar

    java = _java()
    try:
        classpath = os.pathsep.join([str(build.build(quiet=True)), str(build.spark_jars_dir() / "*")])
    except build.BuildError as e:
        console.print(f"[red]error:[/red] {e}")
        return 1
    # a URI goes as given; a local path is made absolute (the JVM would resolve it alike, but say so)
    path = args.path if re.match(r"^[A-Za-z][A-Za-z0-9+.-]+:", args.path) else os.path.abspath(args.path)
    cmd = [java, "-cp", classpath, "io.hudimeta.view.TimelineServer", path, "--port", str(args.port)]
    for flag, value in (("--view-type", args.view_type), ("--spillable-mem", args.spillable_mem),
                        ("--spillable-dir", args.spillable_dir)):
        if value is not None:
            cmd += [flag, str(value)]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(java, cmd)
    return 0  # not reached


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    candidate = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if not candidate or not os.access(candidate, os.X_OK):
        raise JavaNotFoundError(f"no java found (JAVA_HOME={home or 'unset'}, PATH); the timeline server needs a JDK "
                          "or JRE 17+")
    return candidate


class JavaNotFoundError(HudiError, OSError):
    """The machine lacks what a command needs (a JVM)."""


def register(sub) -> None:
    ts = sub.add_parser("timeline-server", help="serve a table's file-system view to writers (Hudi RFC-03)")
    common.add_path(ts)
    ts.add_argument("--port", type=int, required=True, help="port to listen on (0: any free port)")
    ts.add_argument("--view-type", type=str.upper, choices=("MEMORY", "SPILLABLE_DISK"),
                    help="where the view keeps its files (hoodie.filesystem.view.type; default MEMORY)")
    ts.add_argument("--spillable-mem", type=int, metavar="BYTES",
                    help="heap bytes before SPILLABLE_DISK spills (hoodie.filesystem.view.spillable.mem)")
    ts.add_argument("--spillable-dir", metavar="DIR",
                    help="local directory SPILLABLE_DISK spills to (hoodie.filesystem.view.spillable.dir)")
    ts.set_defaults(fn=cmd_timeline_server)
