# Two threads blocked in a read, each on its own pipe: the main thread in main ->
# handle_request -> build_report, the second in worker -> Worker.wait_for_orders ("# at"
# marks the line each frame runs). Prints the main thread's native id, its
# threading.get_ident() and the descriptor it reads, then the same for the second.
# Used by tests/unit/test_python.c and tests/unit/root/test_python_bpf.c.
import os
import sys
import threading

r, w = os.pipe()
r2, w2 = os.pipe()


def build_report():
    os.read(r, 1)  # at: build_report


def handle_request():
    build_report()  # at: handle_request


def main():
    handle_request()  # at: main


class Worker:
    def wait_for_orders(self):
        os.read(r2, 1)  # at: wait_for_orders


def worker():
    Worker().wait_for_orders()  # at: worker


t = threading.Thread(target=worker, daemon=True)
t.start()
sys.stdout.write('%d %d %d %d %d %d\n' % (threading.get_native_id(), threading.get_ident(), r,
                                          t.native_id, t.ident, r2))
sys.stdout.flush()
main()  # at: <module>
