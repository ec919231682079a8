/* SPDX-License-Identifier: MIT */
/*
 * Readable names for mangled ones: C++ ("_ZN6ledger4postEi" is "ledger::post(int)") and
 * Rust's legacy mangling ("core::fmt::write", its hash dropped). Uses the C++ runtime's
 * own demangler, loaded when first needed: every system with C++ programs on it has one,
 * and one without simply shows names as they are.
 */
#ifndef SLIDEOPS_SYMBOLS_DEMANGLE_H
#define SLIDEOPS_SYMBOLS_DEMANGLE_H

/* The demangled name, malloc'd; NULL when name is not mangled, or cannot be demangled
 * here (then show it as it is). */
char *symbol__demangle(const char *name);

#endif
