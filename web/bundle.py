#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The standalone flame graph page from its template and the web UI's own files.

    web/bundle.py TEMPLATE OUT CSS MAIN

MAIN is the page's ES module (web/standalone.js); it and every module it imports, and
they import, from the files beside them are inlined, each after those it imports. Their
import lines are dropped and their exports made plain, so together they are one inline
module: a file:// page cannot load modules from other files, and one module shares its
top-level names with all (two modules declaring one name are refused). The list is the
imports: a module the flame graph starts to use is inlined by being imported. The
page's Content-Security-Policy allows exactly that script and style, by their SHA-256
hashes. The profile's placeholder (/*SLIDEOPS_PROFILE*/) is left for slideops to fill."""
import base64
import hashlib
import os
import re
import sys


def digest(text):
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


# Our imports name what they take from a file beside them or below (over one line or a
# few); anything else is a mistake to stop on.
IMPORT = re.compile(r"^import \{[^}]*\} from '(\./[a-z_/]+\.js)';\n", flags=re.M)
TOP_LEVEL = re.compile(r"^(?:export )?(?:async )?(?:function|const|let|class) ([A-Za-z_$][\w$]*)",
                       flags=re.M)


def ordered(main_path):
    """MAIN and the modules it imports, each after those it imports (depth first)."""
    order, visiting = [], []

    def visit(path):
        path = os.path.normpath(path)
        if path in order:
            return
        if path in visiting:
            sys.exit(f"bundle.py: {path} imports itself, through " + " -> ".join(visiting))
        visiting.append(path)
        src = open(path, encoding="utf-8").read()
        for rel in IMPORT.findall(src):
            visit(os.path.join(os.path.dirname(path), rel))
        visiting.pop()
        order.append(path)

    visit(main_path)
    return order


def main():
    template, out, css, main_module = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    parts, declared = [], {}
    for path in ordered(main_module):
        src = open(path, encoding="utf-8").read()
        src = IMPORT.sub("", src)
        for name in TOP_LEVEL.findall(src):
            if name in declared:
                sys.exit(f"bundle.py: {path} and {declared[name]} both declare {name}")
            declared[name] = path
        if re.search(r"^\s*import\b", src, flags=re.M):
            sys.exit(f"bundle.py: {path}: an import this script cannot inline")
        src = re.sub(r"^export (function|const|let|class|async function) ", r"\1 ", src,
                     flags=re.M)
        if re.search(r"^export\b", src, flags=re.M):
            sys.exit(f"bundle.py: {path}: an export this script cannot inline")
        parts.append(f"// ---- {path} ----\n{src}")
    script = "\n" + "\n".join(parts)
    style = "\n" + open(css, encoding="utf-8").read()
    for what, text in (("script", script), ("style", style)):
        # Inline, either would end at its first closing tag.
        if re.search(r"</(script|style)|<!--", text, flags=re.I):
            sys.exit(f"bundle.py: the {what} holds a closing tag or a comment opener")
    page = open(template, encoding="utf-8").read()
    for mark in ("/*SLIDEOPS_SCRIPT*/", "/*SLIDEOPS_STYLE*/", "/*SLIDEOPS_PROFILE*/"):
        if page.count(mark) != 1:
            sys.exit(f"bundle.py: {template} must hold {mark} once")
    page = (page.replace("/*SLIDEOPS_SCRIPT_HASH*/", digest(script))
                .replace("/*SLIDEOPS_STYLE_HASH*/", digest(style))
                .replace("/*SLIDEOPS_SCRIPT*/", script)
                .replace("/*SLIDEOPS_STYLE*/", style))
    if page.count("/*SLIDEOPS_PROFILE*/") != 1:
        sys.exit("bundle.py: the script or style holds the profile's placeholder")
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)


if __name__ == "__main__":
    main()
