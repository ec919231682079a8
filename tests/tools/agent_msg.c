// SPDX-License-Identifier: MIT
/*
 * Messages of the agent protocol (src/protocol/agent.proto) for tests that drive a
 * workspace's /agent/ paths with curl, as an agent would:
 *
 *   agent_msg encode TYPE [FIELD=VALUE]... > body     one message (a repeated field is
 *                                                    given once per value; VALUE @FILE
 *                                                    reads a bytes field from FILE)
 *   agent_msg decode TYPE < body                     the message as one JSON object
 *   agent_msg profile HOST [KEY=VALUE]... > file.pb.gz
 *                                                    a stored profile from HOST: one
 *                                                    mapping (build id b00c...) and a
 *                                                    sample at 0x1100 of 50 samples,
 *                                                    started 5 s ago, of 5 s at 99 Hz on
 *                                                    2 CPUs; KEYs change it: started (s
 *                                                    of the epoch), seconds, ncpus, hz,
 *                                                    count and ns (the sample's values),
 *                                                    build (its build id), locations=N
 *                                                    (N more samples, each at its own
 *                                                    address: N distinct locations)
 *   agent_msg batch BOOT SEQ CAPTURE PROFILE NAME [VERSION [DROPPED]] > body
 *                                                    a Batch of PROFILE, with a symbol
 *                                                    table naming 0x1000+0x200 NAME ("-":
 *                                                    none) for build b00c..., of
 *                                                    protocol VERSION (default 1),
 *                                                    reporting DROPPED spool drops (0)
 *
 * TYPE is the message's name (EnrolRequest, PollRequest, ...).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "agent.pb-c.h"
#include "profile/pprof.h"
#include "profile/profile.h"

#define BUILD_ID "b00c0ffee0000000000000000000000000000001"

static const ProtobufCMessageDescriptor *type_of(const char *name)
{
	static const ProtobufCMessageDescriptor *all[] = {
		&slideops__agent__enrol_request__descriptor,
		&slideops__agent__enrol_reply__descriptor,
		&slideops__agent__poll_request__descriptor,
		&slideops__agent__poll_reply__descriptor,
		&slideops__agent__command__descriptor,
		&slideops__agent__command_reply__descriptor,
		&slideops__agent__ack__descriptor,
		&slideops__agent__progress__descriptor,
		&slideops__agent__symbols_wanted__descriptor,
		&slideops__agent__batch__descriptor,
		&slideops__agent__batch_reply__descriptor,
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(all[i]->short_name, name) == 0)
			return all[i];
	fprintf(stderr, "agent_msg: no message %s\n", name);
	exit(2);
}

static void *read_all(FILE *f, size_t *len)
{
	size_t cap = 1 << 16;
	char *buf = malloc(cap);

	*len = 0;
	for (size_t n; buf && (n = fread(buf + *len, 1, cap - *len, f)) > 0;) {
		*len += n;
		if (*len == cap)
			buf = realloc(buf, cap *= 2);
	}
	return buf;
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *data;

	if (!f) {
		fprintf(stderr, "agent_msg: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	data = read_all(f, len);
	fclose(f);
	return data;
}

static void write_message(const ProtobufCMessage *m)
{
	size_t len = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(len + 1);

	protobuf_c_message_pack(m, buf);
	fwrite(buf, 1, len, stdout);
	free(buf);
}

/* Sets FIELD=VALUE on m (scalars, strings, bytes, enums by name or number; repeated
 * strings append). */
static void set_field(ProtobufCMessage *m, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[128];
	const ProtobufCFieldDescriptor *f;
	char *base = (char *)m;
	const char *v;

	if (!eq || (size_t)(eq - arg) >= sizeof(name)) {
		fprintf(stderr, "agent_msg: %s is not FIELD=VALUE\n", arg);
		exit(2);
	}
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	v = eq + 1;
	f = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, name);
	if (!f) {
		fprintf(stderr, "agent_msg: %s has no field %s\n", m->descriptor->short_name, name);
		exit(2);
	}
	if (f->label == PROTOBUF_C_LABEL_REPEATED && f->type == PROTOBUF_C_TYPE_STRING) {
		size_t *n = (size_t *)(base + f->quantifier_offset);
		char ***arr = (char ***)(base + f->offset);

		*arr = realloc(*arr, (*n + 1) * sizeof(char *));
		(*arr)[(*n)++] = strdup(v);
		return;
	}
	switch (f->type) {
	case PROTOBUF_C_TYPE_STRING:
		*(char **)(base + f->offset) = strdup(v);
		break;
	case PROTOBUF_C_TYPE_UINT32:
		*(uint32_t *)(base + f->offset) = (uint32_t)strtoul(v, NULL, 0);
		break;
	case PROTOBUF_C_TYPE_UINT64:
		*(uint64_t *)(base + f->offset) = strtoull(v, NULL, 0);
		break;
	case PROTOBUF_C_TYPE_BOOL:
		*(protobuf_c_boolean *)(base + f->offset) =
			strcmp(v, "true") == 0 || strcmp(v, "1") == 0;
		break;
	case PROTOBUF_C_TYPE_ENUM: {
		const ProtobufCEnumValue *ev =
			protobuf_c_enum_descriptor_get_value_by_name(f->descriptor, v);

		*(int *)(base + f->offset) = ev ? ev->value : atoi(v);
		break;
	}
	case PROTOBUF_C_TYPE_BYTES: {
		ProtobufCBinaryData *b = (ProtobufCBinaryData *)(base + f->offset);

		if (v[0] == '@') {
			b->data = read_file(v + 1, &b->len);
		} else {
			b->data = (uint8_t *)strdup(v);
			b->len = strlen(v);
		}
		break;
	}
	default:
		fprintf(stderr, "agent_msg: cannot set %s\n", name);
		exit(2);
	}
}

static json_t *message_json(const ProtobufCMessage *m);

static json_t *value_json(const ProtobufCFieldDescriptor *f, const void *p)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_STRING:
		return json_string(*(char *const *)p);
	case PROTOBUF_C_TYPE_UINT32:
		return json_integer(*(const uint32_t *)p);
	case PROTOBUF_C_TYPE_UINT64:
		return json_integer((json_int_t) * (const uint64_t *)p);
	case PROTOBUF_C_TYPE_BOOL:
		return json_boolean(*(const protobuf_c_boolean *)p);
	case PROTOBUF_C_TYPE_ENUM: {
		const ProtobufCEnumValue *ev =
			protobuf_c_enum_descriptor_get_value(f->descriptor, *(const int *)p);

		return ev ? json_string(ev->name) : json_integer(*(const int *)p);
	}
	case PROTOBUF_C_TYPE_BYTES: {
		const ProtobufCBinaryData *b = p;

		return json_stringn((const char *)b->data, b->len);
	}
	case PROTOBUF_C_TYPE_MESSAGE:
		return message_json(*(ProtobufCMessage *const *)p);
	default:
		return json_null();
	}
}

static size_t type_size(const ProtobufCFieldDescriptor *f)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_UINT64:
		return 8;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	default:
		return 4;
	}
}

static json_t *message_json(const ProtobufCMessage *m)
{
	json_t *o = json_object();
	const char *base = (const char *)m;

	for (unsigned i = 0; m && i < m->descriptor->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &m->descriptor->fields[i];

		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)(base + f->quantifier_offset);
			const char *arr = *(const char *const *)(base + f->offset);
			json_t *a = json_array();

			for (size_t j = 0; j < n; j++)
				json_array_append_new(a, value_json(f, arr + j * type_size(f)));
			json_object_set_new(o, f->name, a);
		} else {
			json_object_set_new(o, f->name, value_json(f, base + f->offset));
		}
	}
	return o;
}

/* The value of KEY=VALUE among args, or def. */
static const char *arg_of(int argc, char **argv, const char *key, const char *def)
{
	size_t n = strlen(key);

	for (int i = 0; i < argc; i++)
		if (strncmp(argv[i], key, n) == 0 && argv[i][n] == '=')
			return argv[i] + n + 1;
	return def;
}

/* A small stored profile from host: one mapping, one sample at 0x1100 (and more, as the
 * arguments say). */
static int make_profile(const char *host, int argc, char **argv)
{
	struct profile *p = profile__new(QUESTION_CPU);
	struct prof_mapping map = { .kind = MAPPING_EXE, .language = LANGUAGE_C,
				    .build_id_recorded = true };
	struct prof_labels lb = { .pid = 4242, .tid = 4242 };
	int64_t v[PROFILE_MAX_VALUES] = { strtoll(arg_of(argc, argv, "count", "50"), NULL, 0),
					  strtoll(arg_of(argc, argv, "ns", "505050505"), NULL, 0) };
	unsigned long locations = strtoul(arg_of(argc, argv, "locations", "0"), NULL, 0);
	uint32_t loc, stack;
	void *data;
	size_t len;

	p->header.hostname = profile__intern(p, host);
	p->header.ncpus = (uint32_t)strtoul(arg_of(argc, argv, "ncpus", "2"), NULL, 0);
	p->header.duration_ns = strtoull(arg_of(argc, argv, "seconds", "5"), NULL, 0) *
				1000000000ULL;
	p->header.started_at_ns = (int64_t)time(NULL) * 1000000000LL -
				  (int64_t)p->header.duration_ns;
	p->header.started_at_ns = strtoll(arg_of(argc, argv, "started", "0"), NULL, 0) ?
		strtoll(arg_of(argc, argv, "started", "0"), NULL, 0) * 1000000000LL :
		p->header.started_at_ns;
	p->header.sample_hz = (uint32_t)strtoul(arg_of(argc, argv, "hz", "99"), NULL, 0);
	lb.comm = profile__intern(p, "agent-work");
	map.path = profile__intern(p, "/usr/bin/agent-work");
	map.build_id = profile__intern(p, arg_of(argc, argv, "build", BUILD_ID));
	if (profile__add_mapping(p, &map))
		return 1;
	loc = profile__add_location(p, &(struct prof_location){ .mapping = 0,
							       .address = 0x1100 });
	stack = profile__add_stack(p, &loc, 1);
	if (profile__add_sample(p, stack, v, &lb))
		return 1;
	for (unsigned long i = 0; i < locations; i++) {
		int64_t one[PROFILE_MAX_VALUES] = { 1, 1000 };

		loc = profile__add_location(p, &(struct prof_location){
						       .mapping = 0, .address = 0x100000 + 16 * i });
		stack = profile__add_stack(p, &loc, 1);
		if (loc == UINT32_MAX || stack == UINT32_MAX ||
		    profile__add_sample(p, stack, one, &lb))
			return 1;
	}
	if (pprof__encode(p, false, &data, &len))
		return 1;
	fwrite(data, 1, len, stdout);
	free(data);
	profile__free(p);
	return 0;
}

static int make_batch(int argc, char **argv)
{
	Slideops__Agent__Batch b = SLIDEOPS__AGENT__BATCH__INIT;
	Slideops__Agent__SymbolTable t = SLIDEOPS__AGENT__SYMBOL_TABLE__INIT, *tp = &t;
	Slideops__Agent__Symbol sym = SLIDEOPS__AGENT__SYMBOL__INIT, *sp = &sym;

	b.protocol_version = argc > 5 ? (uint32_t)strtoul(argv[5], NULL, 0) : 1;
	b.boot_id = argv[0];
	b.sequence = strtoull(argv[1], NULL, 0);
	b.capture_id = argv[2];
	b.profile.data = read_file(argv[3], &b.profile.len);
	b.spool_dropped = argc > 6 ? strtoull(argv[6], NULL, 0) : 0;
	sym.address = 0x1000;
	sym.size = 0x200;
	sym.name = argv[4];
	t.build_id = BUILD_ID;
	t.from_symtab = true;
	t.file_name = "agent-work";
	t.n_symbols = 1;
	t.symbols = &sp;
	/* NAME "-": no table (the workspace said it has the build's). */
	b.n_symbols = strcmp(argv[4], "-") != 0;
	b.symbols = &tp;
	write_message(&b.base);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "encode") == 0) {
		const ProtobufCMessageDescriptor *d = type_of(argv[2]);
		ProtobufCMessage *m = calloc(1, d->sizeof_message);

		d->message_init(m);
		for (int i = 3; i < argc; i++)
			set_field(m, argv[i]);
		write_message(m);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "decode") == 0) {
		const ProtobufCMessageDescriptor *d = type_of(argv[2]);
		size_t len;
		uint8_t *data = read_all(stdin, &len);
		ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, len, data);
		json_t *o;

		if (!m) {
			fprintf(stderr, "agent_msg: not a %s message (%zu bytes)\n", argv[2], len);
			return 1;
		}
		o = message_json(m);
		json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
		putchar('\n');
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "profile") == 0)
		return make_profile(argv[2], argc - 3, argv + 3);
	if (argc >= 7 && argc <= 9 && strcmp(argv[1], "batch") == 0)
		return make_batch(argc - 2, argv + 2);
	fprintf(stderr, "usage: agent_msg encode|decode TYPE [FIELD=VALUE]... | profile HOST [KEY=VALUE]... |"
			" batch BOOT SEQ CAPTURE PROFILE NAME [VERSION [DROPPED]]\n");
	return 2;
}
