# Two busy threads in two functions: the main thread in main -> handle_request ->
# build_report, the second in worker -> Worker.crunch, each spinning on one line ("# hot"
# marks it; "# at" marks the line a caller runs while it waits for its callee). Prints
# "ready" once both run. Used by tests/unit/root/test_python_bpf.c and
# tests/integration/python.sh.
import sys
import threading


def build_report():
    n = 0
    while True:
        for i in range(10000): n += i * i  # hot: build_report


def handle_request():
    build_report()  # at: handle_request


def main():
    handle_request()  # at: main


class Worker:
    def crunch(self):
        n = 0
        while True:
            for i in range(10000): n ^= i  # hot: crunch


def worker():
    Worker().crunch()


t = threading.Thread(target=worker, daemon=True)
t.start()
sys.stdout.write('ready\n')
sys.stdout.flush()
main()  # at: <module>
