// SPDX-License-Identifier: MIT
/* The `check --json` document: each requirement, then each question. */
#include "views/views.h"

#include "capture/capture.h"

json_t *views__check(const struct check_result *r)
{
	json_t *doc = json_object(), *reqs = json_array(), *qs = json_object(),
	       *kernel = json_object(), *details = json_object(), *walkers = json_object();

	if (!doc || !reqs || !qs || !kernel || !details || !walkers)
		goto out_nomem;
	for (unsigned i = 0; i < r->nrequirements; i++) {
		const struct requirement *req = &r->requirements[i];
		json_t *o = json_pack("{s:s, s:b, s:s}", "name", req->name, "ok", req->ok,
				      "detail", req->detail);

		if (!o || json_array_append_new(reqs, o))
			goto out_nomem;
	}
	for (int q = 0; q < QUESTION__COUNT; q++) {
		const char *id = question__id(q);

		if (json_object_set_new(qs, id, json_boolean(r->questions[q])) ||
		    json_object_set_new(kernel, id, json_boolean(r->kernel_supports[q])) ||
		    json_object_set_new(details, id, json_string(r->question_details[q])))
			goto out_nomem;
		/* Which stack walker runs: "full", or "frame pointers" with the refusal. */
		{
			const struct walker_refusal *w = &r->walker[q];
			json_t *o = json_pack("{s:s}", "walker",
					      w->refused ? "frame pointers" : "full");

			if (o && w->refused &&
			    (json_object_set_new(o, "refused_program",
						 w->program[0] ? json_string(w->program) :
								 json_null()) ||
			     json_object_set_new(o, "verifier_said", json_string(w->verifier_said)) ||
			     json_object_set_new(o, "instructions",
						 w->instructions >= 0 ?
							 json_integer(w->instructions) :
							 json_null()))) {
				json_decref(o);
				o = NULL;
			}
			if (!o || json_object_set_new(walkers, id, o))
				goto out_nomem;
		}
	}
	/* A server can be profiled when its primary question (the table's) can run on it. */
	if (json_object_set_new(doc, "can_profile",
				json_boolean(r->questions[question__primary()])) ||
	    json_object_set_new(doc, "requirements", reqs) ||
	    json_object_set_new(doc, "questions", qs) ||
	    json_object_set_new(doc, "kernel_supports", kernel) ||
	    json_object_set_new(doc, "question_details", details) ||
	    json_object_set_new(doc, "stack_walkers", walkers))
		goto out_nomem_doc;
	return doc;

out_nomem:
	json_decref(reqs);
	json_decref(qs);
	json_decref(kernel);
	json_decref(details);
	json_decref(walkers);
out_nomem_doc:
	json_decref(doc);
	return NULL;
}
