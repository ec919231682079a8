// SPDX-License-Identifier: MIT
/*
 * The PostgreSQL backend: the workspace in a database (store_pg.h), so that several
 * workspace processes, on several machines, serve one workspace with no shared disk.
 * This file: the query helpers every other file of the backend uses, below them all
 * (the URL, connections and the operations table are store_pg_open.c's).
 */
#include "store/store_pg.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT4 23
#define OID_TEXT 25

/* ---- statements ---- */

int pg__conn_problem(int err, const char *words)
{
	char buf[512];
	size_t len;

	snprintf(buf, sizeof(buf), "%s", words ? words : "");
	len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	return store__set_problem(err, buf, NULL, 0);
}

static void arg(struct pg_args *a, Oid type, const void *data, int len)
{
	if (a->n >= PG_ARGS_MAX)
		abort(); /* a statement of ours with too many parameters: a bug */
	a->types[a->n] = type;
	a->values[a->n] = data;
	a->lengths[a->n] = len;
	a->formats[a->n] = 1;
	a->n++;
}

void pg_args__bytes(struct pg_args *a, const void *data, size_t len)
{
	arg(a, OID_BYTEA, len ? data : "", (int)len);
}

void pg_args__str(struct pg_args *a, const char *s)
{
	arg(a, OID_BYTEA, s, s ? (int)strlen(s) : 0);
}

void pg_args__text(struct pg_args *a, const char *s)
{
	arg(a, OID_TEXT, s, s ? (int)strlen(s) : 0);
}

void pg_args__int64(struct pg_args *a, int64_t v)
{
	uint64_t be = htobe64((uint64_t)v);

	memcpy(a->ints[a->n], &be, 8);
	arg(a, OID_INT8, a->ints[a->n], 8);
}

void pg_args__int64_or_null(struct pg_args *a, const int64_t *v)
{
	if (v)
		pg_args__int64(a, *v);
	else
		arg(a, OID_INT8, NULL, 0);
}

void pg_args__int32(struct pg_args *a, int32_t v)
{
	uint32_t be = htobe32((uint32_t)v);

	memcpy(a->ints[a->n], &be, 4);
	arg(a, OID_INT4, a->ints[a->n], 4);
}

/* SQLSTATE classes and codes as -errno. */
static int state_err(const char *state)
{
	static const struct {
		const char *state;
		int err;
	} map[] = {
		{ "23505", -EEXIST },  { "53100", -ENOSPC }, { "53200", -ENOMEM },
		{ "40001", -EBUSY },   { "40P01", -EBUSY },  { "55P03", -EBUSY },
		{ "42501", -EACCES },  { "25006", -EROFS },  { "54000", -EFBIG },
		{ "22P02", -EBADMSG }, { "42P01", -EBADMSG }, { "42703", -EBADMSG },
	};

	if (!state)
		return -ECONNRESET;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(state, map[i].state) == 0)
			return map[i].err;
	if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0)
		return -ECONNRESET;
	return -EIO;
}

int pg__exec(struct store *s, const char *sql, const struct pg_args *a, PGresult **out)
{
	PGresult *res;
	int err = 0;

	if (out)
		*out = NULL;
	res = PQexecParams(s->pg, sql, a ? a->n : 0, a ? a->types : NULL,
			   a ? a->values : NULL, a ? a->lengths : NULL, a ? a->formats : NULL, 1);
	switch (PQresultStatus(res)) {
	case PGRES_COMMAND_OK:
	case PGRES_TUPLES_OK:
		break;
	default:
		err = state_err(PQresultErrorField(res, PG_DIAG_SQLSTATE));
		pg__conn_problem(err, res ? PQresultErrorMessage(res) : PQerrorMessage(s->pg));
		if (PQstatus(s->pg) != CONNECTION_OK)
			err = -ECONNRESET;
	}
	if (err || !out)
		PQclear(res);
	else
		*out = res;
	return err;
}

int pg__script(struct store *s, const char *sql)
{
	PGresult *res = PQexec(s->pg, sql);
	int err = 0;

	if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_TUPLES_OK) {
		err = state_err(PQresultErrorField(res, PG_DIAG_SQLSTATE));
		pg__conn_problem(err, res ? PQresultErrorMessage(res) : PQerrorMessage(s->pg));
	}
	PQclear(res);
	return err;
}

uint64_t pg__changed(const PGresult *res)
{
	const char *n = PQcmdTuples((PGresult *)res);

	return n && *n ? strtoull(n, NULL, 10) : 0;
}

int pg__exec_one_row(struct store *s, const char *sql, const struct pg_args *a)
{
	PGresult *res;
	int err = pg__exec(s, sql, a, &res);

	if (err)
		return err;
	err = pg__changed(res) ? 0 : -ENOENT;
	PQclear(res);
	return err;
}

int pg__begin(struct store *s)
{
	return pg__exec(s, "BEGIN", NULL, NULL);
}

int pg__commit(struct store *s)
{
	return pg__exec(s, "COMMIT", NULL, NULL);
}

void pg__rollback(struct store *s)
{
	if (PQtransactionStatus(s->pg) != PQTRANS_IDLE)
		PQclear(PQexec(s->pg, "ROLLBACK"));
}

int64_t pg__int64(const PGresult *res, int row, int col)
{
	uint64_t be = 0;

	if (PQgetisnull(res, row, col) || PQgetlength(res, row, col) != 8)
		return 0;
	memcpy(&be, PQgetvalue(res, row, col), 8);
	return (int64_t)be64toh(be);
}

int32_t pg__int32(const PGresult *res, int row, int col)
{
	uint32_t be = 0;

	if (PQgetisnull(res, row, col) || PQgetlength(res, row, col) != 4)
		return 0;
	memcpy(&be, PQgetvalue(res, row, col), 4);
	return (int32_t)be32toh(be);
}

char *pg__str(const PGresult *res, int row, int col)
{
	return strndup(PQgetvalue(res, row, col), (size_t)PQgetlength(res, row, col));
}

int pg__bytes(const PGresult *res, int row, int col, void **data, size_t *len)
{
	*len = (size_t)PQgetlength(res, row, col);
	*data = malloc(*len ? *len : 1);
	if (!*data)
		return -ENOMEM;
	memcpy(*data, PQgetvalue(res, row, col), *len);
	return 0;
}
