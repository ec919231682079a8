#!/usr/bin/env bash
# node.sh's assertions (issue 29) against Debian 12's own Node 18 (V8 10.2), as Debian
# users run it: its node executable exports none of V8's layout constants, the shared
# libnode.so.108 it links does (and keeps no .symtab: its builtins are found through
# .dynsym's accessors), so the capture must find V8 in the mapped libnode. JavaScript
# functions named (computeTotals optimised under the recursion, auditOnce interpreted or
# baseline, node's loader by its inferred name), in their callers' order, language
# JavaScript, each with its script and first line.
# The node is `make deps`'s (tests/tools/fetch-node18.sh: Debian's nodejs and libnode108
# unpacked into build/node18, beside the installed node); NODE18_ROOT elsewhere.
set -euo pipefail
: "${SLIDEOPS:?set SLIDEOPS to the slideops binary}"
skip() { echo "$*"; exit 77; }

root=${NODE18_ROOT:-$(dirname "$SLIDEOPS")/node18}
node=$root/usr/bin/node
lib=$root/usr/lib/x86_64-linux-gnu
[ -x "$node" ] && [ -f "$lib/libnode.so.108" ] ||
	skip "no Debian Node 18 in $root: make deps fetches it (apt-get download nodejs libnode108; offline, or not Debian 12?)"
version=$(LD_LIBRARY_PATH=$lib "$node" --version 2>&1) ||
	skip "Debian's Node 18 in $root does not run: $version (make deps installs node-acorn, node-cjs-module-lexer, node-undici)"
case $version in
v18.*) ;;
*) echo "FAIL: $node is $version, not Node 18" >&2; exit 1 ;;
esac
# what this test is about: V8's constants in the library, none in the executable
[ "$(nm -D "$node" 2>/dev/null | grep -c '^[0-9a-f]* [BD] v8dbg_')" = 0 ] ||
	{ echo "FAIL: $node exports v8dbg_ constants itself: not the node this test is for" >&2; exit 1; }
[ "$(nm -D "$lib/libnode.so.108" | grep -c ' v8dbg_off_fp_function$')" = 1 ] ||
	{ echo "FAIL: $lib/libnode.so.108 exports no v8dbg_off_fp_function" >&2; exit 1; }
NODE=$node NODE_LIBRARY_PATH=$lib NODE_INLINED=0 exec bash "$(dirname "$0")/node.sh"
