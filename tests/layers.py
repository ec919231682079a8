#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Layers only point down: every #include "..." of src/ and bpf/ goes to a file of its own
layer or of one below it (docs/architecture.md, "Layers").

The layers are the fenced block of docs/architecture.md whose info string is `layers`:
one line a layer, the lowest first; folders (ending in /) or single files named on one
line are side by side, and neither includes the other. A file is of the layer whose
entry is the longest that names it or a folder above it; a file no entry names is an
error too, so a new folder is placed before it is used.

    tests/layers.py [--root DIR]     (DIR: the tree to read, default this checkout)

Prints each wrong-way include as FILE:LINE with both layers, and the count; exits 1 when
there is one. Includes are resolved as the compiler does: the including file's folder,
then -Isrc, then -Ibpf (the Makefile's order); a generated header (a skeleton, protobuf
code) is in none of them and is not checked.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
FENCE = re.compile(r'^```layers\s*$')
SOURCES = ('.c', '.h', '.def')


def read_layers(doc):
	"""[(level, entry)] from the `layers` block, level 0 the lowest."""
	layers, inside = [], False
	for line in open(doc, encoding='utf-8'):
		if not inside:
			inside = bool(FENCE.match(line))
			continue
		if line.startswith('```'):
			return layers
		line = line.split('#', 1)[0].strip()
		if line:
			level = len({lvl for lvl, _ in layers})
			layers += [(level, entry) for entry in line.split()]
	sys.exit(f'{doc}: no ```layers block' if not inside else f'{doc}: the ```layers block is not closed')


def layer_of(path, layers):
	best = None
	for level, entry in layers:
		if path == entry or (entry.endswith('/') and path.startswith(entry)):
			if best is None or len(entry) > len(best[1]):
				best = (level, entry)
	return best


def resolve(root, src, name):
	for base in (os.path.dirname(src), 'src', 'bpf'):
		path = os.path.normpath(os.path.join(base, name))
		if os.path.isfile(os.path.join(root, path)):
			return path
	return None


def main():
	root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
	if len(sys.argv) == 3 and sys.argv[1] == '--root':
		root = sys.argv[2]
	elif len(sys.argv) != 1:
		sys.exit('usage: tests/layers.py [--root DIR]')
	layers = read_layers(os.path.join(root, 'docs/architecture.md'))
	wrong = placed = 0
	for top in ('src', 'bpf'):
		for folder, _, files in sorted(os.walk(os.path.join(root, top))):
			for name in sorted(files):
				if not name.endswith(SOURCES):
					continue
				src = os.path.relpath(os.path.join(folder, name), root)
				mine = layer_of(src, layers)
				if mine is None:
					print(f'{src}: in no layer: name its folder in docs/architecture.md\'s layers block')
					placed += 1
					continue
				for n, line in enumerate(open(os.path.join(root, src), errors='replace'), 1):
					m = INCLUDE.match(line)
					target = m and resolve(root, src, m.group(1))
					if not target:
						continue
					theirs = layer_of(target, layers)
					if theirs is None or theirs[1] == mine[1] or theirs[0] < mine[0]:
						continue
					way = 'up to' if theirs[0] > mine[0] else 'sideways to'
					print(f'{src}:{n}: includes {target}: layer {mine[1]} points {way} '
					      f'layer {theirs[1]}')
					wrong += 1
	print(f'layers: {wrong} wrong-way include(s)' +
	      (f', {placed} file(s) in no layer' if placed else ''))
	return 1 if wrong or placed else 0


if __name__ == '__main__':
	sys.exit(main())
