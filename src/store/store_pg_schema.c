// SPDX-License-Identifier: MIT
/*
 * The PostgreSQL workspace's schema, its versions and migrations.
 *
 * slideops_meta says whose database this is ("program" = "slideops") and at which
 * version ("schema_version"). A writer that finds an older version (or an empty
 * database) migrates it in one transaction holding a transaction-level advisory lock,
 * and reads the version again under the lock: two processes starting at once migrate
 * once, and a migration cut short leaves the database as it was. A database holding
 * tables of another program, or made by a newer slideops, is refused and left as it is.
 *
 * Times are Unix epoch nanoseconds. symbols.source holds enum symbol_source (0 upload,
 * 1 symtab, 2 dynsym): the lowest is the best table for a build.
 */
#include "store/store_pg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* pg_advisory_xact_lock's key for migrations: "slideops" in ASCII. */
#define MIGRATION_LOCK "7236833745154584691"

static const char schema_v1[] =
	"CREATE TABLE slideops_meta ("
	"  key text PRIMARY KEY,"
	"  value text NOT NULL);"
	"INSERT INTO slideops_meta (key, value) VALUES ('program', 'slideops');"
	"CREATE TABLE profiles ("
	"  id text COLLATE \"C\" PRIMARY KEY,"
	"  question text NOT NULL,"
	"  server bytea NOT NULL,"
	"  started_at_ns bigint NOT NULL,"
	"  duration_ns bigint NOT NULL,"
	"  answer bytea NOT NULL,"
	"  saved_at_ns bigint NOT NULL,"
	"  bytes bigint NOT NULL);"
	"CREATE INDEX profiles_by_start ON profiles (started_at_ns, saved_at_ns, id);"
	/* The blob apart from its row: a page of the list never reads a blob. Already
	 * gzip'd, so stored as it is, not compressed again. */
	"CREATE TABLE profile_blobs ("
	"  id text COLLATE \"C\" PRIMARY KEY REFERENCES profiles (id) ON DELETE CASCADE,"
	"  data bytea NOT NULL);"
	"ALTER TABLE profile_blobs ALTER COLUMN data SET STORAGE EXTERNAL;"
	"CREATE TABLE symbols ("
	"  build_id bytea NOT NULL,"
	"  source integer NOT NULL,"
	"  file_name bytea NOT NULL,"
	"  functions bigint NOT NULL,"
	"  stored_at_ns bigint NOT NULL,"
	"  data bytea NOT NULL,"
	"  PRIMARY KEY (build_id, source));"
	"CREATE TABLE lines ("
	"  build_id bytea PRIMARY KEY,"
	"  addresses bigint NOT NULL,"
	"  stored_at_ns bigint NOT NULL,"
	"  data bytea NOT NULL);"
	"CREATE TABLE services ("
	"  name bytea PRIMARY KEY,"
	"  match text NOT NULL,"
	"  value bytea NOT NULL,"
	"  added_at_ns bigint NOT NULL);"
	"CREATE TABLE servers ("
	"  id bytea PRIMARY KEY,"
	"  hostname bytea NOT NULL,"
	"  this_server boolean NOT NULL DEFAULT false,"
	"  added_at_ns bigint NOT NULL);";

/* v2: an index for each filter of the profile list (by server, by question), in the
 * list's order, so that a page of a 100k-profile workspace reads only its rows; and
 * uploads by age. */
static const char schema_v2[] =
	"CREATE INDEX profiles_by_server ON profiles (server, started_at_ns, saved_at_ns, id);"
	"CREATE INDEX profiles_by_question ON profiles"
	"  (question, started_at_ns, saved_at_ns, id);"
	"CREATE INDEX uploads_by_age ON symbols (stored_at_ns) WHERE source = 0;";

/* v3: how many profiles each server has of each question, kept by a trigger in the
 * transaction of every insert and delete, so that the list's exact total is a sum over
 * servers, not a count over every profile. */
static const char schema_v3[] =
	"CREATE TABLE profile_counts ("
	"  server bytea NOT NULL,"
	"  question text NOT NULL,"
	"  n bigint NOT NULL,"
	"  PRIMARY KEY (server, question));"
	"INSERT INTO profile_counts (server, question, n)"
	"  SELECT server, question, count(*) FROM profiles GROUP BY server, question;"
	"CREATE FUNCTION slideops_count_profiles() RETURNS trigger LANGUAGE plpgsql AS $$"
	" BEGIN"
	"  IF TG_OP = 'INSERT' THEN"
	"   INSERT INTO profile_counts (server, question, n) VALUES (NEW.server, NEW.question, 1)"
	"    ON CONFLICT (server, question) DO UPDATE SET n = profile_counts.n + 1;"
	"   RETURN NEW;"
	"  END IF;"
	"  UPDATE profile_counts SET n = n - 1"
	"   WHERE server = OLD.server AND question = OLD.question;"
	"  RETURN OLD;"
	" END $$;"
	"CREATE TRIGGER profiles_counted AFTER INSERT OR DELETE ON profiles"
	"  FOR EACH ROW EXECUTE FUNCTION slideops_count_profiles();";

/* v4: agents. A server's name (unique among those not removed: profiles are listed by
 * it), what its agent said of itself, when it was last heard and removed; one-use
 * enrolment tokens and agents' credentials, by their SHA-256 only; the batches agents
 * delivered, so a batch sent again is stored once. */
static const char schema_v4[] =
	"ALTER TABLE servers ADD COLUMN name bytea NOT NULL DEFAULT '',"
	"  ADD COLUMN machine_id bytea NOT NULL DEFAULT '',"
	"  ADD COLUMN kernel bytea NOT NULL DEFAULT '',"
	"  ADD COLUMN agent_version bytea NOT NULL DEFAULT '',"
	"  ADD COLUMN boot_id bytea NOT NULL DEFAULT '',"
	"  ADD COLUMN cpus bigint NOT NULL DEFAULT 0,"
	"  ADD COLUMN last_seen_ns bigint NOT NULL DEFAULT 0,"
	"  ADD COLUMN removed_at_ns bigint NOT NULL DEFAULT 0;"
	"UPDATE servers SET name = hostname;"
	"CREATE TABLE enrolments ("
	"  token_hash text PRIMARY KEY,"
	"  created_at_ns bigint NOT NULL,"
	"  expires_at_ns bigint NOT NULL,"
	"  used_at_ns bigint NOT NULL DEFAULT 0);"
	"CREATE TABLE credentials ("
	"  hash text PRIMARY KEY,"
	"  server_id bytea NOT NULL,"
	"  created_at_ns bigint NOT NULL,"
	"  revoked_at_ns bigint NOT NULL DEFAULT 0);"
	"CREATE TABLE batches ("
	"  server_id bytea NOT NULL,"
	"  boot_id bytea NOT NULL,"
	"  sequence bigint NOT NULL,"
	"  profile_id text NOT NULL,"
	"  stored_at_ns bigint NOT NULL,"
	"  PRIMARY KEY (server_id, boot_id, sequence));";

/* v5: agents' commands waiting for their poll (or delivered, and their replies), and
 * each server's last capture on its agent, so that every process of the workspace can
 * hand a command over and follow its capture. */
static const char schema_v5[] =
	"CREATE TABLE agent_commands ("
	"  id text COLLATE \"C\" PRIMARY KEY,"
	"  server_id bytea NOT NULL,"
	"  body bytea NOT NULL,"
	"  queued_at_ns bigint NOT NULL,"
	"  delivered_at_ns bigint NOT NULL DEFAULT 0,"
	"  status integer NOT NULL DEFAULT 0,"
	"  reply bytea);"
	"CREATE INDEX agent_commands_waiting ON agent_commands (server_id, queued_at_ns)"
	"  WHERE delivered_at_ns = 0;"
	"CREATE TABLE agent_captures ("
	"  server_id bytea PRIMARY KEY,"
	"  state bytea NOT NULL,"
	"  updated_at_ns bigint NOT NULL);";

/* v6: the captures each server's agent said its spool dropped, counted in the
 * transaction that stores each batch, so the count outlives serve and every process of
 * the workspace shows it. */
static const char schema_v6[] =
	"ALTER TABLE servers ADD COLUMN spool_dropped bigint NOT NULL DEFAULT 0;";

/* v7: an agent's symbol and line tables are its own server's (docs/security.md): kept
 * apart from the workspace's own and users' uploads, by server; a delivered profile's
 * server, found from its batch; and the batches refused for what they held, by server. */
static const char schema_v7[] =
	"CREATE TABLE server_symbols ("
	"  server_id bytea NOT NULL,"
	"  build_id bytea NOT NULL,"
	"  source integer NOT NULL,"
	"  functions bigint NOT NULL,"
	"  stored_at_ns bigint NOT NULL,"
	"  data bytea NOT NULL,"
	"  PRIMARY KEY (server_id, build_id, source));"
	"CREATE TABLE server_lines ("
	"  server_id bytea NOT NULL,"
	"  build_id bytea NOT NULL,"
	"  addresses bigint NOT NULL,"
	"  stored_at_ns bigint NOT NULL,"
	"  data bytea NOT NULL,"
	"  PRIMARY KEY (server_id, build_id));"
	"CREATE INDEX batches_by_profile ON batches (profile_id);"
	"ALTER TABLE servers ADD COLUMN batches_refused bigint NOT NULL DEFAULT 0,"
	"  ADD COLUMN last_refusal bytea NOT NULL DEFAULT '',"
	"  ADD COLUMN last_refusal_ns bigint NOT NULL DEFAULT 0;";

static const char *const migrations[] = { NULL,	     schema_v1, schema_v2, schema_v3,
					  schema_v4, schema_v5, schema_v6, schema_v7 };

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == PG_SCHEMA_VERSION + 1,
	       "a migration for every schema version");

/*
 * The version of the database: 0 when it holds no table at all, -EMEDIUMTYPE when it
 * holds tables but not ours, else slideops_meta's.
 */
static int read_version(struct store *s, int *version)
{
	PGresult *res;
	char *program = NULL, *text = NULL;
	int err;

	*version = 0;
	err = pg__exec(s, "SELECT to_regclass('slideops_meta') IS NOT NULL,"
			  " (SELECT count(*) FROM pg_catalog.pg_class c JOIN"
			  "  pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
			  "  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT IN"
			  "  ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%')",
		       NULL, &res);
	if (err)
		return err;
	if (!*PQgetvalue(res, 0, 0)) {
		/* No slideops_meta: an empty database is a new workspace, anything else is
		 * another program's. */
		err = pg__int64(res, 0, 1) ? -EMEDIUMTYPE : 0;
		PQclear(res);
		return err;
	}
	PQclear(res);
	err = pg__exec(s, "SELECT (SELECT value FROM slideops_meta WHERE key = 'program'),"
			  " (SELECT value FROM slideops_meta WHERE key = 'schema_version')",
		       NULL, &res);
	if (err)
		return err == -EBADMSG ? -EMEDIUMTYPE : err;
	if (!PQgetisnull(res, 0, 0))
		program = pg__str(res, 0, 0);
	if (!PQgetisnull(res, 0, 1))
		text = pg__str(res, 0, 1);
	PQclear(res);
	if (!program || strcmp(program, "slideops") || !text || atoi(text) < 1)
		err = -EMEDIUMTYPE;
	else
		*version = atoi(text);
	free(program);
	free(text);
	return err;
}

/* Runs the migrations from version `from` up to `to`, in the caller's transaction. */
static int migrate_to(struct store *s, int from, int to)
{
	struct pg_args a = { 0 };
	char version[16];
	int err = 0;

	for (int v = from + 1; v <= to && !err; v++)
		err = pg__script(s, migrations[v]);
	if (err)
		return err;
	snprintf(version, sizeof(version), "%d", to);
	pg_args__text(&a, version);
	return pg__exec(s, "INSERT INTO slideops_meta (key, value) VALUES"
			   " ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET"
			   " value = excluded.value",
			&a, NULL);
}

static int migrate(struct store *s, int to)
{
	int version, err;

	err = pg__begin(s);
	if (err)
		return err;
	/* Whoever takes the lock first migrates; the other then finds it done. */
	err = pg__exec(s, "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")", NULL, NULL);
	if (!err)
		err = read_version(s, &version);
	if (!err && version > PG_SCHEMA_VERSION)
		err = -EPROTO;
	if (!err && version < to)
		err = migrate_to(s, version, to);
	if (!err)
		err = pg__commit(s);
	if (err)
		pg__rollback(s);
	return err;
}

int pg__migrate(struct store *s, bool write)
{
	int version, err;

	err = read_version(s, &version);
	if (err)
		return err;
	s->pg_version = version;
	if (version > PG_SCHEMA_VERSION)
		return -EPROTO; /* a newer slideops made this workspace */
	if (version == PG_SCHEMA_VERSION)
		return 0;
	if (!write)
		return version == 0 ? -ENOENT : 0; /* a reader reads an older one as it is */
	err = migrate(s, PG_SCHEMA_VERSION);
	if (!err)
		s->pg_version = PG_SCHEMA_VERSION;
	return err;
}


int store_pg__create_at(const char *url, int version)
{
	struct store s = { .dir_fd = -1, .profiles_fd = -1 };
	int err;

	if (version < 1 || version > PG_SCHEMA_VERSION)
		return -EINVAL;
	s.pg = PQconnectdb(url);
	err = PQstatus(s.pg) == CONNECTION_OK ? migrate(&s, version) : -ECONNREFUSED;
	PQfinish(s.pg);
	return err;
}
