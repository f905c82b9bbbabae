"""python -m s3_server [--port P] [--latency-ms N] [--verbose]: serves moto's S3 with the request log and the
fault rules on http://127.0.0.1:P until Ctrl-C (or until the process that started it dies)."""
from __future__ import annotations

import argparse
import os
import threading
import time


def watch_parent(interval_s: float = 0.5) -> None:
    """Exits as soon as the parent process is gone (the test run that started us was killed, say): a server
    nobody can stop must not outlive it. An orphan is adopted by another process, so its parent id changes."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval_s)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m s3_server", description=__doc__)
    ap.add_argument("--port", type=int, default=9000, help="port on 127.0.0.1, 0 = any free one (%(default)s)")
    ap.add_argument("--latency-ms", type=float, default=0, help="delay of every S3 request (%(default)s)")
    ap.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = ap.parse_args(argv)
    watch_parent()

    from s3_server.app import serve  # moto takes a moment to import: after the arguments are known good

    server = serve(args.port, args.latency_ms, args.verbose)
    # the first line of stdout names the endpoint: S3Server reads the port from it when it asked for any
    print(f"s3_server: http://127.0.0.1:{server.server_port} (latency {args.latency_ms:g} ms; Ctrl-C stops it)",
          flush=True)
    server.serve_forever()  # werkzeug's returns on Ctrl-C
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
