# Two threads blocked in a read, each on its own pipe: the main thread in main ->
# handle_request -> build_report, the second in worker -> Worker.wait_for_orders ("# at"
# marks the line each frame runs). Prints the main thread's native id, its
# threading.get_ident() and the descriptor it reads, then the same for the second.
# Used by tests/unit/unwind/test_python.c and tests/unit/root/test_python_bpf.c. Runs on 3.6 on:
# before 3.8 (no threading.get_native_id) a thread's native id is gettid's.
import os
import sys
import threading


def native_id():
    if hasattr(threading, 'get_native_id'):
        return threading.get_native_id()
    import ctypes
    return ctypes.CDLL(None).syscall(186)  # gettid, x86-64


native_ids = {}

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
    native_ids['worker'] = native_id(); started.set()
    Worker().wait_for_orders()  # at: worker


started = threading.Event()
t = threading.Thread(target=worker, daemon=True)
t.start()
started.wait()
sys.stdout.write('%d %d %d %d %d %d\n' % (native_id(), threading.get_ident(), r,
                                          native_ids['worker'], t.ident, r2))
sys.stdout.flush()
main()  # at: <module>
