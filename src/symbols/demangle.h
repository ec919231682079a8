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

/* The name as a person writes it, malloc'd: without its symbol version
 * ("pthread_mutex_lock@@GLIBC_2.2.5" is "pthread_mutex_lock"; a PLT stub keeps "@plt"),
 * demangled. NULL when name reads as it is (or on no memory: then show it as it is). */
char *symbol__readable(const char *name);

#endif
