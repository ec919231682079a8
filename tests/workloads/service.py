# A Python service's request loop: each request is handle(), three quarters of its work
# in build_report and a quarter in render_page. Each spends its time on one line, a loop
# written on one line so that the line a sample reports is known ("# hot" marks it; the
# tests find lines by these comments, not by number).
#   python service.py            serves until killed
#   python service.py SECONDS    serves SECONDS, then prints the requests it handled
# Used by tests/integration/python.sh and bench/python/run.sh.
import sys
import time


def build_report(n):
    s = 0
    for i in range(n): s += i * i  # hot: build_report
    return s


def render_page(n):
    s = 0
    for i in range(n): s += i ^ 3  # hot: render_page
    return s


def handle():
    build_report(3000)
    render_page(1000)


if len(sys.argv) > 1:
    until = time.monotonic() + float(sys.argv[1])
    n = 0
    while time.monotonic() < until:
        handle()
        n += 1
    print(n)
else:
    while True:
        handle()
