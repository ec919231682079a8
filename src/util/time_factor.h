/* SPDX-License-Identifier: MIT */
/*
 * How many times longer than a real server's the bounds on reading binaries are:
 * SLIDEOPS_READ_TIME_FACTOR (1-100; anything else is 1). Set where every instruction runs
 * many times slower, as in the kernel matrix's emulated guests (tests/kernels/guest.sh):
 * the reading budgets (binaries_budget__in_force) and the guarded reader's times to start
 * and to answer, without which a guest whose root is on 9p reads no binary at all.
 */
#ifndef SLIDEOPS_UTIL_TIME_FACTOR_H
#define SLIDEOPS_UTIL_TIME_FACTOR_H

unsigned time_factor__read(void);

#endif
