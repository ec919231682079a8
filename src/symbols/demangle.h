/* SPDX-License-Identifier: MIT */
/*
 * Readable names for mangled ones: C++ ("_ZN6ledger4postEi" is "ledger::post(int)"),
 * Rust's legacy mangling ("core::fmt::write", its hash dropped) and Rust v0
 * ("_RNvCs..._7mycrate4main" is "mycrate::main"), with libiberty's demangler.
 */
#ifndef SLIDEOPS_SYMBOLS_DEMANGLE_H
#define SLIDEOPS_SYMBOLS_DEMANGLE_H

/* The demangled name, malloc'd; NULL when name is not mangled, or cannot be demangled
 * here (then show it as it is). */
char *symbol__demangle(const char *name);

#endif
