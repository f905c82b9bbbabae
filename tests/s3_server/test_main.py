"""s3_server.__main__: `python -m s3_server` serves until stopped, and never outlives the process that started it."""
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from conftest import PROJECT

ENV = {**os.environ, "PYTHONPATH": str(PROJECT)}


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_a_person_starts_it_and_it_prints_the_endpoint():
    server = subprocess.Popen([sys.executable, "-m", "s3_server", "--port", "0", "--latency-ms", "30"],
                              stdout=subprocess.PIPE, text=True, env=ENV)
    try:
        line = server.stdout.readline()
        assert line.startswith("s3_server: http://127.0.0.1:") and "latency 30 ms" in line
        endpoint = line.split()[1]
        with urllib.request.urlopen(f"{endpoint}/_harness/latency", timeout=10) as response:
            assert response.read() == b'{"ms": 30.0}'
    finally:
        server.send_signal(signal.SIGINT)  # Ctrl-C
        assert server.wait(timeout=20) == 0
        server.stdout.close()


def test_the_server_dies_with_its_parent():
    parent = subprocess.Popen(
        [sys.executable, "-c", "import time; from s3_server import S3Server\n"
                               "s3 = S3Server().start(); print(s3.port, flush=True); time.sleep(120)"],
        stdout=subprocess.PIPE, text=True, env=ENV)
    try:
        port = int(parent.stdout.readline())
        assert answers(port)
    finally:
        parent.kill()
        parent.wait()
        parent.stdout.close()
    deadline = time.monotonic() + 30  # a generous bound: the server looks at its parent every half second
    while answers(port) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not answers(port)
