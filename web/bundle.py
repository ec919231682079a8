#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The standalone flame graph page from its template and the web UI's own files.

    web/bundle.py TEMPLATE OUT CSS MODULE...

MODULEs are ES modules in dependency order (each imports only those before it); their
import lines are dropped and their exports made plain, so together they are one inline
module: a file:// page cannot load modules from other files. The page's Content-Security-
Policy allows exactly that script and style, by their SHA-256 hashes. The profile's
placeholder (/*SLIDEOPS_PROFILE*/) is left for slideops to fill."""
import base64
import hashlib
import re
import sys


def digest(text):
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def main():
    template, out, css, modules = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    parts = []
    for path in modules:
        src = open(path, encoding="utf-8").read()
        # Our imports name what they take from a file beside them (over one line or a
        # few); anything else is a mistake to stop on.
        src = re.sub(r"^import \{[^}]*\} from '\./[a-z_]+\.js';\n", "", src, flags=re.M)
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
