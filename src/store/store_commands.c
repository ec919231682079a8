// SPDX-License-Identifier: MIT
/* Agents' commands and captures in the workspace (store.h): what callers pass is checked
 * here, the backends keep rows. */
#include "store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_backend.h"
#include "util/clock.h"

static bool id_ok(const char *id)
{
	return id && *id && strlen(id) < STORE_COMMAND_ID_MAX;
}

static bool server_ok(const char *server_id)
{
	return server_id && *server_id && strlen(server_id) < STORE_ID_MAX;
}

int store__queue_command(struct store *s, const char *server_id, const char *id,
			 const char *body)
{
	int64_t now = clock__realtime_ns();
	int err = store__need_db(s, true);

	if (err)
		return err;
	if (!server_ok(server_id) || !id_ok(id) || !body)
		return -EINVAL;
	return s->ops->queue_command(s, server_id, id, body, now, now - STORE_COMMANDS_KEPT_NS);
}

int store__take_commands(struct store *s, const char *server_id, size_t max, char ***bodies,
			 size_t *n)
{
	int err = store__need_db(s, true);

	*bodies = NULL;
	*n = 0;
	if (err)
		return err;
	if (!server_ok(server_id) || !max)
		return -EINVAL;
	return s->ops->take_commands(s, server_id, clock__realtime_ns(), max, bodies, n);
}

int store__unqueue_command(struct store *s, const char *server_id, const char *id)
{
	int err = store__need_db(s, true);

	if (err)
		return err;
	return server_ok(server_id) && id_ok(id) ? s->ops->unqueue_command(s, server_id, id) :
						   -EINVAL;
}

int store__reply_command(struct store *s, const char *server_id, const char *id, int status,
			 const char *doc)
{
	int err = store__need_db(s, true);

	if (err)
		return err;
	if (!server_ok(server_id) || !id_ok(id) || status < 100 || status > 599)
		return -EINVAL;
	return s->ops->reply_command(s, server_id, id, status, doc ? doc : "");
}

int store__command_reply(struct store *s, const char *server_id, const char *id, int *status,
			 char **doc)
{
	int err = store__need_db(s, false);

	*status = 0;
	*doc = NULL;
	if (err)
		return err;
	if (!server_ok(server_id) || !id_ok(id))
		return -EINVAL;
	return s->ops->command_reply(s, server_id, id, status, doc);
}

int store__servers_waiting(struct store *s, char ***ids, size_t *n)
{
	int err = store__need_db(s, false);

	*ids = NULL;
	*n = 0;
	return err ? err : s->ops->servers_waiting(s, ids, n);
}

void store__free_strings(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

int store__put_agent_capture(struct store *s, const char *server_id, const char *state)
{
	int err = store__need_db(s, true);

	if (err)
		return err;
	if (!server_ok(server_id) || !state)
		return -EINVAL;
	return s->ops->put_agent_capture(s, server_id, state, clock__realtime_ns());
}

int store__get_agent_capture(struct store *s, const char *server_id, char **state)
{
	int err = store__need_db(s, false);

	*state = NULL;
	if (err)
		return err;
	return server_ok(server_id) ? s->ops->get_agent_capture(s, server_id, state) : -EINVAL;
}
