# Python calling a C extension: call_native() calls burnext.burn, whose time is spent in
# ext_burn (burnext.c, built by the test against the interpreter's headers).
#   python ext.py DIR    DIR holds the built burnext module
# Used by tests/integration/python.sh.
import sys
sys.path.insert(0, sys.argv[1])
import burnext


def call_native():
    burnext.burn(2000000)


while True:
    call_native()
