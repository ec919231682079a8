// SPDX-License-Identifier: MIT
/*
 * The verifier's budget of every question's programs on the running kernel: for each
 * program a capture would load (the variants this kernel takes), the instructions the
 * verifier processed (its limit is 1,000,000) and its verification time, from the
 * kernel's own statistics (BPF_LOG_STATS). One line per program, tab-separated:
 *   kernel question program insns usec
 * Run as root by bench/kernels/run.sh, on this machine and in each kernel of the matrix.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "capture/capture_internal.h"
#include "profile/profile.h"

struct row {
	const char *kernel, *question;
};

static void print_program(const char *prog, long insns, long usec, const char *refusal,
			  void *arg)
{
	const struct row *r = arg;

	printf("%s\t%s\t%s\t%ld\t%ld\n", r->kernel, r->question, prog, insns, usec);
	if (refusal)
		fprintf(stderr, "budgets: %s: %s\n", r->question, refusal);
}

int main(void)
{
	struct utsname u;
	int failed = 0;

	uname(&u);
	capture__quiet_libbpf();
	for (int q = 0; q < QUESTION__COUNT; q++) {
		const struct capture_question *row = capture_question__get(q);
		struct row r = { u.release, question__id(q) };
		int err;

		if (!row)
			continue;
		err = capture__verifier_stats(row, false, print_program, &r);
		if (err) {
			fprintf(stderr, "budgets: %s: its programs do not load here: %s\n",
				r.question, strerror(-err));
			failed = 1;
		}
	}
	return failed;
}
