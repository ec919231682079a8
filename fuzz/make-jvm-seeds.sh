#!/bin/sh
# SPDX-License-Identifier: MIT
# Seeds for build/fuzz/fuzz_jvm: one made-up JVM memory image whose tables describe
# what the frame walker reads (OpenJDK 17's offsets), as fuzz/fuzz_jvm.c lays it out:
# the first 15 words are the offsets of the exported variables in the image.
#   fuzz/make-jvm-seeds.sh DIR
set -e
dir=${1:?usage: make-jvm-seeds.sh DIR}
mkdir -p "$dir"
python3 - "$dir/jvm17" <<'PY'
import struct, sys
BASE = 0x7f0000000000
img = bytearray(1 << 16)
used = [0x100]  # words 0-14: the symbols, 15: a Method
def alloc(n):
    at = used[0]; used[0] += (n + 15) & ~15; return at
def put(at, b): img[at:at + len(b)] = b
def u64(at, v): put(at, struct.pack('<Q', v & (2**64 - 1)))
def s(t):
    at = alloc(len(t) + 1); put(at, t.encode() + b'\0'); return BASE + at
structs, types, ints = alloc(48 * 48), alloc(8 * 48), alloc(8 * 16)
vals = [BASE + structs, 48, 0, 8, 24, 32, 40, BASE + types, 48, 0, 40, BASE + ints, 16, 0, 8]
for i, v in enumerate(vals):
    at = alloc(8); u64(at, v); u64(i * 8, at)
fields = [("CodeCache", "_heaps", 1, 0, BASE + 0x10), ("CodeCache", "_low_bound", 1, 0, BASE + 0x20),
          ("CodeCache", "_high_bound", 1, 0, BASE + 0x18), ("GrowableArrayBase", "_len", 0, 0, 0),
          ("GrowableArray<int>", "_data", 0, 8, 0), ("CodeHeap", "_memory", 0, 8, 0),
          ("CodeHeap", "_segmap", 0, 120, 0), ("CodeHeap", "_log2_segment_size", 0, 256, 0),
          ("VirtualSpace", "_low", 0, 16, 0), ("VirtualSpace", "_high", 0, 24, 0),
          ("CodeBlob", "_name", 0, 96, 0), ("CodeBlob", "_size", 0, 12, 0),
          ("CodeBlob", "_frame_size", 0, 28, 0), ("CodeBlob", "_code_begin", 0, 32, 0),
          ("CodeBlob", "_code_end", 0, 40, 0), ("CodeBlob", "_frame_complete_offset", 0, 24, 0),
          ("CompiledMethod", "_method", 0, 112, 0),
          ("Method", "_constMethod", 0, 8, 0), ("ConstMethod", "_constants", 0, 8, 0),
          ("ConstMethod", "_name_index", 0, 34, 0), ("ConstMethod", "_signature_index", 0, 36, 0),
          ("ConstantPool", "_pool_holder", 0, 24, 0), ("ConstantPool", "_length", 0, 60, 0),
          ("Klass", "_name", 0, 24, 0),
          ("Symbol", "_length", 0, 4, 0), ("Symbol", "_body", 0, 6, 0),
          ("ConstantPool", "_source_file_name_index", 0, 54, 0),
          ("ConstMethod", "_constMethod_size", 0, 24, 0), ("ConstMethod", "_flags", 0, 28, 0),
          ("ConstMethod", "_code_size", 0, 32, 0)]
for i, (t, f, st, off, ad) in enumerate(fields):
    e = structs + i * 48
    u64(e, s(t)); u64(e + 8, s(f)); put(e + 24, struct.pack('<I', st)); u64(e + 32, off); u64(e + 40, ad)
u64(types, s("ConstantPool")); u64(types + 40, 72)
u64(types + 48, s("HeapBlock")); u64(types + 88, 16)
u64(types + 96, s("ConstMethod")); u64(types + 136, 48)
for i, (n, v) in enumerate([("frame::interpreter_frame_sender_sp_offset", -1),
                            ("frame::interpreter_frame_last_sp_offset", -2),
                            ("ConstMethod::_has_linenumber_table", 1)]):
    u64(ints + i * 16, s(n)); put(ints + i * 16 + 8, struct.pack('<i', v))
# a Method of com/acme/Invoices named computeTotals (name index 5), at word 15, from
# Invoices.java (source file index 6) line 21: 4 bytes of code, then javac's line table
# of it compressed as HotSpot keeps it
def sym(t):
    at = alloc(8 + len(t)); put(at + 4, struct.pack('<H', len(t))); put(at + 6, t.encode()); return at
lines = bytes([0xff, 0x00, 0x2a, 0x11, 0x51, 0xff, 0x1e, 0x01, 0x32, 0x00])
method, cm, pool, holder = alloc(88), alloc(72), alloc(72 + 64), alloc(64)
u64(method + 8, BASE + cm); u64(cm + 8, BASE + pool); put(cm + 34, struct.pack('<H', 5))
put(cm + 24, struct.pack('<iH', 9, 1)); put(cm + 32, struct.pack('<H', 4)); put(cm + 52, lines)
u64(pool + 24, BASE + holder); put(pool + 60, struct.pack('<i', 8))
put(pool + 54, struct.pack('<H', 6)); u64(pool + 72 + 48, BASE + sym("Invoices.java"))
u64(pool + 72 + 40, BASE + sym("computeTotals")); u64(holder + 24, BASE + sym("com/acme/Invoices"))
u64(15 * 8, method)
open(sys.argv[1], 'wb').write(bytes(img[:used[0]]))
PY
# A V8 binary for fuzz_v8: an ELF whose .dynsym exports every v8dbg_ constant the reader
# looks for (their names from src/unwind/v8_structs.c, each 8 but the frame offsets) and
# whose .symtab places the embedded builtins, built here where a compiler is.
structs=$(dirname "$0")/../src/unwind/v8_structs.c
if command -v cc >/dev/null 2>&1 && [ -r "$structs" ]; then
	src=$(mktemp --suffix=.c)
	sed -n 's/^\t\[V8_[A-Z_]*\] = "\([A-Za-z_0-9]*\)",$/int v8dbg_\1 = 8;/p' "$structs" |
		sed 's/off_fp_function = 8/off_fp_function = -16/; s/off_fp_context = 8/off_fp_context = -8/' \
		> "$src"
	cat >> "$src" <<'C'
__asm__(".text\nv8_Default_embedded_blob_code_:\n.fill 64,1,0xcc\n"
	".section .rodata\nv8_Default_embedded_blob_code_size_:\n.long 64\n");
int main(void) { return 0; }
C
	cc -O0 -rdynamic -o "$dir/node" "$src" 2>/dev/null || true
	# and a libnode as Debian's libnode.so.108: the same constants, no .symtab (-s), the
	# builtins' place and size returned by the two accessors .dynsym exports
	sed '/^__asm__/,$d' "$src" > "$src.lib.c"
	cat >> "$src.lib.c" <<'C'
__asm__(".text\nv8_blob:\n.fill 64,1,0xcc\n");
extern const unsigned char v8_blob[];
__attribute__((visibility("hidden"))) unsigned int v8_blob_size = 64;
const unsigned char *_ZN2v88internal23DefaultEmbeddedBlobCodeEv(void) { return v8_blob; }
unsigned int _ZN2v88internal27DefaultEmbeddedBlobCodeSizeEv(void) { return v8_blob_size; }
C
	cc -O2 -fPIC -shared -s -o "$dir/libnode.so.108" "$src.lib.c" 2>/dev/null || true
	rm -f "$src" "$src.lib.c"
fi
