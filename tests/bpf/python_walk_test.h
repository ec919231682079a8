/* SPDX-License-Identifier: MIT */
/* What tests/bpf/python_walk.bpf.c sends to tests/unit/root/test_python_bpf.c. */
#ifndef SLIDEOPS_TESTS_PYTHON_WALK_TEST_H
#define SLIDEOPS_TESTS_PYTHON_WALK_TEST_H

#include "python_records.h"

enum test_record_kind {
	TEST_RECORD_SAMPLE = 1,
	TEST_RECORD_CODE = 2,
};

struct test_sample {
	__u32 kind;
	__u32 tid;
	__u64 walk_ns;   /* the walk alone, names not included */
	__u64 native_ns; /* the kernel and user stacks as bpf_get_stack takes them, same tick */
	struct python_stack stack;
};

struct test_code {
	__u32 kind;
	__u32 pad;
	struct python_code code;
};

#endif
