# SlideOps server profiles: one binary, build/slideops.
#
# Pipeline (as libbpf-bootstrap): vmlinux.h from the kernel's BTF, bpf/%.bpf.c and each
# question's src/questions/NAME/NAME.bpf.c -> build/bpf/%.bpf.o -> build/bpf/%.skel.h, then
# user space. Unit tests are built twice:
# plain, and under ASan+UBSan (build/asan/).

OUTPUT     := build
CC         ?= gcc
CLANG      ?= clang
# Debian installs it in /usr/sbin, which a user's PATH lacks (make runs as the user, sudo
# only for what needs root); found before make deps has installed it too.
BPFTOOL    ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
PROTOC_C   ?= protoc-c
ARCH       := $(shell uname -m | sed 's/x86_64/x86/' | sed 's/aarch64/arm64/')
VERSION    := 0.1.0

LIBS       := -lbpf -lelf -ldw -lz -llz4 -lsqlite3 -ljansson -lprotobuf-c -liberty \
	      -lmicrohttpd -lgnutls -lpq -lcurl -licui18n -licuuc -lpthread -lm
WARN       := -Wall -Wextra -Werror -Wno-missing-field-initializers
CFLAGS     ?= -g -O2
PG_INCLUDE := $(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
CFLAGS     += -std=c11 -D_GNU_SOURCE $(WARN) -Isrc -Ibpf -I$(OUTPUT)/gen -I$(OUTPUT)/bpf \
	      -I$(PG_INCLUDE) \
	      -DSLIDEOPS_VERSION='"$(VERSION)"'
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s\n' "$(1)" "$(patsubst $(OUTPUT)/%,%,$(2))";
endif

# The BPF programs: the shared ones of bpf/ (features, ksym, unwind_check) and each
# question's, in its own folder (src/questions/NAME/NAME.bpf.c); every object and skeleton
# is build/bpf/NAME.bpf.o and NAME.skel.h whatever folder its source is in (vpath).
QUESTION_DIRS := $(sort $(dir $(wildcard src/questions/*/*.bpf.c)))
QUESTION_BPF_SRCS := $(wildcard src/questions/*/*.bpf.c)
BPF_SRCS   := $(wildcard bpf/*.bpf.c) $(QUESTION_BPF_SRCS)
vpath %.bpf.c bpf $(QUESTION_DIRS)
# Objects built again for other kernels (docs/kernel.md), chosen at load time:
# NAME_no_trusted_args from NAME.bpf.c with -DNO_TRUSTED_ARGS (before 6.8; the questions
# whose program is a sleepable task iterator, SEC("iter.s/task")), NAME_no_loop with
# -DNO_BPF_LOOP (before 5.17: no Python frames), and NAME_fp with
# -DSTACK_FRAME_POINTERS_ONLY (the smaller walker, for a kernel that refuses the full one):
# every question's program, found by its folder.
QUESTION_OBJS := $(patsubst %.bpf.c,%,$(notdir $(QUESTION_BPF_SRCS)))
ITER_OBJS  := $(patsubst %.bpf.c,%,$(notdir $(shell grep -l 'SEC("iter\.s/task")' \
	$(QUESTION_BPF_SRCS) /dev/null)))
BPF_VARIANTS := $(patsubst %,%_no_trusted_args,$(ITER_OBJS)) \
	$(patsubst %,%_no_loop,$(QUESTION_OBJS)) $(patsubst %,%_fp,$(QUESTION_OBJS))
BPF_OBJS   := $(patsubst %.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(notdir $(BPF_SRCS))) \
	      $(patsubst %,$(OUTPUT)/bpf/%.bpf.o,$(BPF_VARIANTS))
SKELS      := $(patsubst %.bpf.o,%.skel.h,$(BPF_OBJS))
PROTO_C    := $(OUTPUT)/gen/profile.pb-c.c
AGENT_PROTO_C := $(OUTPUT)/gen/agent.pb-c.c
# The library: every folder's C files, each question's folder too (not its BPF program).
LIB_SRCS   := $(filter-out src/cli/main.c %.bpf.c,$(wildcard src/*/*.c src/questions/*/*.c)) $(PROTO_C) $(AGENT_PROTO_C)
LIB_OBJS   := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(patsubst $(OUTPUT)/%,%,$(LIB_SRCS))) \
	      $(OUTPUT)/obj/web/assets.o
ASAN_OBJS  := $(patsubst $(OUTPUT)/obj/%,$(OUTPUT)/asan/obj/%,$(LIB_OBJS))
# Unit tests, one folder of tests/unit/ for each of src/ (tests/unit/questions/NAME/ for a
# question's own): they need no root (make check); tests/unit/root/ load BPF programs or
# make BPF maps, and run in the root tier (tests/run.sh). A test's binary keeps its file's
# name, flat: build/tests/NAME, build/tests/root/NAME for the root tier (the names are
# unique, and checked to be).
UNIT_SRCS  := $(sort $(wildcard tests/unit/*/test_*.c tests/unit/*/*/test_*.c))
unit_bin    = $(if $(filter tests/unit/root/%,$(1)),root/)$(notdir $(basename $(1)))
UNIT_BINS  := $(foreach t,$(UNIT_SRCS),$(OUTPUT)/tests/$(call unit_bin,$(t)))
ASAN_BINS  := $(foreach t,$(UNIT_SRCS),$(OUTPUT)/asan/tests/$(call unit_bin,$(t)))
ifneq ($(words $(UNIT_BINS)),$(words $(sort $(UNIT_BINS))))
$(error two unit tests of tests/unit/ have one name: $(sort $(foreach b,$(UNIT_BINS),$(if $(filter-out 1,$(words $(filter $(b),$(UNIT_BINS)))),$(notdir $(b))))))
endif
TEST_HELPERS := $(wildcard tests/unit/helpers/*.c)

DEB_PACKAGES := make gcc clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev \
	libsqlite3-dev libjansson-dev libprotobuf-c-dev protobuf-c-compiler libcmocka-dev \
	libclang-rt-14-dev pkg-config binutils elfutils procps golang-go sqlite3 file jq python3 \
	chromium lld libiberty-dev libc6-dbg liblz4-dev libmicrohttpd-dev libgnutls28-dev nodejs \
	curl libcurl4-openssl-dev openssl libpq-dev postgresql-15 qemu-system-x86 busybox-static \
	systemd libfuse3-dev libicu-dev
# Debian's Node 18 for its tests (tests/integration/node18.sh): its nodejs and libnode108
# unpacked into $(OUTPUT)/node18 by tests/tools/fetch-node18.sh, beside the nodejs
# installed (nodesource's 20, pinned, here); what libnode.so.108 needs installed: its
# libraries, and the scripts it loads at start from /usr/share/nodejs (node-*).
NODE18_PACKAGES := libuv1 libc-ares2 libicu72 libbrotli1 libnghttp2-14 libssl3 \
	node-acorn node-cjs-module-lexer node-undici
BENCH_PACKAGES := linux-perf bpftrace llvm hyperfine time libbpf-tools wrk bc

# BPF programs that only tests load (tests/bpf/), e.g. to run bpf/ headers on the kernel.
TEST_BPF_SRCS := $(wildcard tests/bpf/*.bpf.c)
TEST_BPF_OBJS := $(patsubst tests/bpf/%.bpf.c,$(OUTPUT)/tests/bpf/%.bpf.o,$(TEST_BPF_SRCS))
TEST_BPF_SKELS := $(patsubst tests/bpf/%.bpf.c,$(OUTPUT)/tests/bpf/%.skel.h,$(TEST_BPF_SRCS))

.DELETE_ON_ERROR:
# Keep the BPF objects: skeletons embed them, and rebuilding them every time is slow.
.SECONDARY: $(BPF_OBJS) $(SKELS) $(TEST_BPF_OBJS)
.PHONY: all deps bench-deps test check unit-test integration-test fuzz-test run bench clean \
	as-root fresh-check kernel-test install-agent

# $(call as_root,COMMAND): runs COMMAND as root: as it is when make runs as root (a
# container, a minimal image, this machine), through sudo otherwise, and when neither is
# there says so plainly. Building stays the caller's; only what needs root is elevated.
as_root = if [ "$$(id -u)" = 0 ]; then $(1); \
	elif command -v sudo >/dev/null 2>&1; then sudo $(1); \
	else echo "make: this step needs root, and you are not root and sudo is not installed: run 'make $(MAKECMDGOALS)' as root, or install sudo" >&2; exit 1; fi

# What `make run` does once built (as root): a first 10 s CPU capture of this server (its
# answer printed), then the workspace server in the foreground with the URL to open,
# until Ctrl-C. LISTEN=ADDR:PORT serves elsewhere (default 127.0.0.1:7070).
LISTEN ?= 127.0.0.1:7070
RUN_COMMAND := sh -c '$(OUTPUT)/slideops capture cpu -d 10 && echo && \
	exec $(OUTPUT)/slideops serve --listen $(LISTEN)'

# The integration tests' workloads (tests/workloads/*.c; not burnext.c, a Python extension
# python.sh builds for each Python it finds), each built once into build/tests/workloads/
# with the flags its "/* build: FLAGS */" line gives; a test copies the one it runs
# (tests/integration/lib.sh's workload). Compiled by its whole path, which its debug lines
# then name (pprof's list command finds the source wherever the test runs it).
WORKLOAD_SRCS := $(filter-out tests/workloads/burnext.c,$(wildcard tests/workloads/*.c))
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUTPUT)/tests/workloads/%,$(WORKLOAD_SRCS))

all: $(OUTPUT)/slideops $(OUTPUT)/tests/agent_msg $(WORKLOADS)

# Messages of the agent protocol for the integration tests' curl (tests/tools/agent_msg.c).
$(OUTPUT)/tests/agent_msg: tests/tools/agent_msg.c $(OUTPUT)/libslideops.a
	$(call msg,TOOL,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $< $(OUTPUT)/libslideops.a $(LIBS) -o $@

# A workload may include another (a build of it with other flags), so each depends on all.
$(OUTPUT)/tests/workloads/%: tests/workloads/%.c $(WORKLOAD_SRCS)
	$(call msg,WORKLOAD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)flags=$$(sed -n 's|^/\* build: \(.*\) \*/$$|\1|p' $<); \
		[ -n "$$flags" ] || { echo "$<: no /* build: FLAGS */ line" >&2; exit 1; }; \
		$(CC) $(abspath $<) $$flags -o $@

# $(call apt_install,PACKAGES): installs, as root, those of PACKAGES that dpkg does not
# list as installed, all in one apt-get call, and says which; nothing when all are there.
# dpkg-query and apt-get are found through PATH.
apt_install = missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null \
		| grep -q 'install ok installed' || printf '%s ' "$$p"; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(call as_root,env DEBIAN_FRONTEND=noninteractive sh -c \
			"apt-get update -qq && apt-get install -y -qq $$missing >/dev/null"); \
	fi

# Installs what building and testing need; does nothing when all is there already. npm
# for the browser tests is Debian's package, unless a nodejs that carries its own is
# installed (a nodejs from elsewhere conflicts with Debian's npm).
DEPS_NEEDED = $(DEB_PACKAGES) $(NODE18_PACKAGES) $$(command -v npm >/dev/null || echo npm)
deps:
	$(Q)$(call apt_install,$(DEPS_NEEDED))
	$(Q)sh tests/tools/fetch-node18.sh $(abspath $(OUTPUT))/node18

# Only the elevation: what `make run` and `make test` use to become root, on its own.
as-root:
	$(Q)$(call as_root,true)

# What the benchmarks need besides, with the above in the same apt-get call.
bench-deps:
	$(Q)$(call apt_install,$(DEPS_NEEDED) $(BENCH_PACKAGES))

$(OUTPUT)/vmlinux.h:
	$(call msg,BTF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

# $(call bpf_cc,FLAGS): the recipe of one BPF object from $< with FLAGS (the variants'
# defines, more include paths); debug info stripped, as skeletons embed the object.
define bpf_cc
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) $(1) -I$(OUTPUT) \
		-Ibpf -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true
endef

# %.bpf.c is found by vpath: in bpf/ or a question's folder. A program includes the
# shared headers of bpf/ and its own folder's (a question's records).
BPF_HEADERS := $(wildcard bpf/*.h src/questions/*/*.h)
$(OUTPUT)/bpf/%.bpf.o: %.bpf.c $(BPF_HEADERS) $(OUTPUT)/vmlinux.h
	$(call bpf_cc,)

$(OUTPUT)/bpf/%_no_trusted_args.bpf.o: %.bpf.c $(BPF_HEADERS) $(OUTPUT)/vmlinux.h
	$(call bpf_cc,-DNO_TRUSTED_ARGS)

$(OUTPUT)/bpf/%_no_loop.bpf.o: %.bpf.c $(BPF_HEADERS) $(OUTPUT)/vmlinux.h
	$(call bpf_cc,-DNO_BPF_LOOP)

$(OUTPUT)/bpf/%_fp.bpf.o: %.bpf.c $(BPF_HEADERS) $(OUTPUT)/vmlinux.h
	$(call bpf_cc,-DSTACK_FRAME_POINTERS_ONLY)

$(OUTPUT)/bpf/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/tests/bpf/%.bpf.o: tests/bpf/%.bpf.c $(wildcard bpf/*.h tests/bpf/*.h) $(OUTPUT)/vmlinux.h
	$(call bpf_cc,-Itests/bpf)

$(OUTPUT)/tests/bpf/%.skel.h: $(OUTPUT)/tests/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# The unit test that loads the Python walker into the kernel.
$(OUTPUT)/tests/root/test_python_bpf $(OUTPUT)/asan/tests/root/test_python_bpf: $(TEST_BPF_SKELS)
$(OUTPUT)/tests/root/test_python_bpf $(OUTPUT)/asan/tests/root/test_python_bpf: \
	CFLAGS += -I$(OUTPUT)/tests/bpf -Itests/bpf -Ibpf

$(OUTPUT)/gen/profile.pb-c.c $(OUTPUT)/gen/profile.pb-c.h: src/profile/profile.proto
	$(call msg,PROTO,$@)
	$(Q)mkdir -p $(OUTPUT)/gen
	$(Q)$(PROTOC_C) --proto_path=src/profile --c_out=$(OUTPUT)/gen $<

# The agent protocol (docs/protocol.md).
$(OUTPUT)/gen/agent.pb-c.c $(OUTPUT)/gen/agent.pb-c.h: src/protocol/agent.proto
	$(call msg,PROTO,$@)
	$(Q)mkdir -p $(OUTPUT)/gen
	$(Q)$(PROTOC_C) --proto_path=src/protocol --c_out=$(OUTPUT)/gen $<

# Everything user space includes is generated first.
GENERATED := $(SKELS) $(OUTPUT)/gen/profile.pb-c.h $(OUTPUT)/gen/agent.pb-c.h

$(OUTPUT)/obj/gen/%.o: $(OUTPUT)/gen/%.c $(GENERATED)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Wno-unused-parameter -c $< -o $@

$(OUTPUT)/obj/%.o: %.c $(GENERATED)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# The web UI: every file under web/ui/ is served, listed by web/assets.py at build time.
# The standalone flame graph page (show --flamegraph) is its template with web/standalone.js
# and the UI's modules it imports inlined (web/bundle.py), so the file works offline.
WEB_UI := $(shell find web/ui)
$(OUTPUT)/gen/web/flamegraph.html: web/flamegraph.html web/bundle.py web/standalone.js $(WEB_UI)
	$(call msg,BUNDLE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)python3 web/bundle.py $< $@ web/ui/app.css web/standalone.js

$(OUTPUT)/gen/web/assets.S: web/assets.py $(WEB_UI)
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)python3 web/assets.py $@ web/ui $(OUTPUT)/gen/web/flamegraph.html

$(OUTPUT)/obj/web/assets.o: $(OUTPUT)/gen/web/assets.S $(OUTPUT)/gen/web/flamegraph.html
	$(call msg,AS,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -I. -c $< -o $@

$(OUTPUT)/asan/obj/gen/%.o: $(OUTPUT)/gen/%.c $(GENERATED)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(ASAN_FLAGS) -Wno-unused-parameter -c $< -o $@

$(OUTPUT)/asan/obj/web/assets.o: $(OUTPUT)/obj/web/assets.o
	$(Q)mkdir -p $(@D) && cp $< $@

$(OUTPUT)/asan/obj/%.o: %.c $(GENERATED)
	$(call msg,CC-ASAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(ASAN_FLAGS) -MMD -MP -c $< -o $@

$(OUTPUT)/libslideops.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUTPUT)/asan/libslideops.a: $(ASAN_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUTPUT)/slideops: $(OUTPUT)/obj/src/cli/main.o $(OUTPUT)/libslideops.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LIBS) -o $@

# The binary under ASan+UBSan, for running integration tests against (the server's
# request handling sees hostile input): SLIDEOPS=build/asan/slideops tests/integration/X.sh
$(OUTPUT)/asan/slideops: $(OUTPUT)/obj/src/cli/main.o $(OUTPUT)/asan/libslideops.a
	$(call msg,LINK-ASAN,$@)
	$(Q)$(CC) $(CFLAGS) $(ASAN_FLAGS) $^ $(LIBS) -o $@

# A unit test's binary from its source (unit_bin): plain and ASan+UBSan. -Itests/unit finds
# what tests of several folders share (helpers/, profile_builder.h); a folder's own fixture
# sits beside its tests.
define unit_test_rules
$(OUTPUT)/tests/$(call unit_bin,$(1)): $(1) $$(TEST_HELPERS) $$(OUTPUT)/libslideops.a
	$$(call msg,TEST,$$@)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) -Itests/unit $$< $$(TEST_HELPERS) $$(OUTPUT)/libslideops.a $$(LIBS) -lcmocka -o $$@

$(OUTPUT)/asan/tests/$(call unit_bin,$(1)): $(1) $$(TEST_HELPERS) $$(OUTPUT)/asan/libslideops.a
	$$(call msg,TEST-ASAN,$$@)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) $$(ASAN_FLAGS) -Itests/unit $$< $$(TEST_HELPERS) \
		$$(OUTPUT)/asan/libslideops.a $$(LIBS) -lcmocka -o $$@
endef
$(foreach t,$(UNIT_SRCS),$(eval $(call unit_test_rules,$(t))))

# What the fuzz targets take of util/: not what builds JSON (jansson) or numbers (libm),
# nor what needs ICU (server_name.c) or protobuf-c (pb_limits.c).
FUZZ_UTIL_SRCS := $(filter-out src/util/json_text.c src/util/format.c src/util/remove_tree.c \
	src/util/server_name.c src/util/pb_limits.c,$(wildcard src/util/*.c))

# The fuzz target over the ELF reader (libFuzzer; clang's runtime from libclang-rt-14-dev).
$(OUTPUT)/fuzz/fuzz_elf: fuzz/fuzz_elf.c fuzz/make-seeds.sh \
		$(wildcard src/elf/*.c src/symbols/symtab.c src/symbols/symtab_stored.c \
		src/symbols/elf_symtab.c) $(FUZZ_UTIL_SRCS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O1 -std=c11 -D_GNU_SOURCE -Isrc -I$(OUTPUT)/gen \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		$(filter %.c,$^) -lelf -lz -o $@
	$(Q)fuzz/make-seeds.sh $(OUTPUT)/fuzz/seeds/elf 2>/dev/null

# The fuzz target over the unwind table builder (.eh_frame / .debug_frame and the cache
# files); its seeds are fuzz/make-seeds.sh's ELF files and real binaries' frame sections.
$(OUTPUT)/fuzz/fuzz_unwind: fuzz/fuzz_unwind.c fuzz/make-seeds.sh $(wildcard src/unwind/*.c) \
		src/elf/cfi.c src/elf/elf_reader.c $(FUZZ_UTIL_SRCS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O1 -std=c11 -D_GNU_SOURCE -Isrc -Ibpf -I$(OUTPUT)/gen \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		$(filter %.c,$(filter-out src/unwind/maps.c,$^)) -lz -o $@
	$(Q)fuzz/make-seeds.sh $(OUTPUT)/fuzz/seeds/unwind unwind 2>/dev/null

# The library as a fuzz target links it (clang: libFuzzer's coverage, ASan+UBSan). The
# pprof reader reaches the questions' table (src/questions/), and through each question
# the layers it plugs into: a target takes of the archive only what it reaches.
FUZZ_LIB_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -Isrc -Ibpf -I$(OUTPUT)/gen -I$(OUTPUT)/bpf \
	-I$(PG_INCLUDE) -DSLIDEOPS_VERSION='"$(VERSION)"' \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB_OBJS := $(patsubst $(OUTPUT)/obj/%,$(OUTPUT)/fuzz/obj/%,$(LIB_OBJS))

$(OUTPUT)/fuzz/obj/gen/%.o: $(OUTPUT)/gen/%.c $(GENERATED)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_LIB_CFLAGS) -c $< -o $@

$(OUTPUT)/fuzz/obj/web/assets.o: $(OUTPUT)/obj/web/assets.o
	$(Q)mkdir -p $(@D) && cp $< $@

$(OUTPUT)/fuzz/obj/%.o: %.c $(GENERATED)
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_LIB_CFLAGS) -MMD -MP -c $< -o $@

$(OUTPUT)/fuzz/libslideops.a: $(FUZZ_LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

# The fuzz target over the pprof reader; it seeds an empty corpus directory itself.
$(OUTPUT)/fuzz/fuzz_pprof: fuzz/fuzz_pprof.c $(OUTPUT)/fuzz/libslideops.a
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O1 -std=c11 -D_GNU_SOURCE -Isrc -I$(OUTPUT)/gen \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		$^ $(LIBS) -o $@

# The fuzz target over CPython binaries (src/unwind/python_binary.c) and code records.
PYTHON_READER_SRCS := src/unwind/python_offsets.c src/unwind/python_binary.c \
	src/unwind/python_code.c src/unwind/python_lines.c
$(OUTPUT)/fuzz/fuzz_python: fuzz/fuzz_python.c fuzz/make-python-seeds.sh $(PYTHON_READER_SRCS) \
		$(wildcard src/elf/*.c) $(FUZZ_UTIL_SRCS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O1 -std=c11 -D_GNU_SOURCE -Isrc -I$(OUTPUT)/gen \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		$(filter %.c,$^) -lelf -lz -o $@
	$(Q)fuzz/make-python-seeds.sh $(OUTPUT)/fuzz/seeds/python 2>/dev/null

# The fuzz target over HotSpot's tables in a JVM's memory (src/unwind/jvm_structs.c) and
# libjvm.so's exported symbols, and over V8's readers (src/unwind/v8_structs.c: a node
# binary's constants and builtins; v8_function.c: a JSFunction's name in its memory;
# v8_code.c: where in its optimised code a frame was).
$(OUTPUT)/fuzz/fuzz_jvm: fuzz/fuzz_jvm.c fuzz/make-jvm-seeds.sh src/unwind/jvm_structs.c src/unwind/jvm_method.c src/unwind/jvm_proc.c \
		src/unwind/jvm_nmethod.c \
		src/unwind/v8_structs.c src/unwind/v8_function.c src/unwind/v8_lines.c src/unwind/v8_code.c \
		src/elf/elf_reader.c $(FUZZ_UTIL_SRCS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O1 -std=c11 -D_GNU_SOURCE -Isrc -I$(OUTPUT)/gen \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		$(filter %.c,$^) -lz -o $@
	$(Q)fuzz/make-jvm-seeds.sh $(OUTPUT)/fuzz/seeds/jvm 2>/dev/null

# Each fuzz target for FUZZ_SECONDS (60 by default); what it finds goes to
# build/fuzz/artifacts/ (crash-*, oom-*, ...); long runs: fuzz/README.md. The
# profile reader gets 256 MB: its seeds include a gzip bomb it must refuse within that.
FUZZ_BINS := $(OUTPUT)/fuzz/fuzz_elf $(OUTPUT)/fuzz/fuzz_pprof $(OUTPUT)/fuzz/fuzz_unwind \
	$(OUTPUT)/fuzz/fuzz_python $(OUTPUT)/fuzz/fuzz_jvm
fuzz-test: $(FUZZ_BINS)
	$(Q)mkdir -p $(OUTPUT)/fuzz/artifacts
	$(Q)for t in $^; do seeds=$(OUTPUT)/fuzz/seeds/$${t##*/fuzz_}; \
		$$t -max_total_time=$${FUZZ_SECONDS:-60} \
		-artifact_prefix=$(OUTPUT)/fuzz/artifacts/ \
		-rss_limit_mb=$$( [ $$t = $(OUTPUT)/fuzz/fuzz_pprof ] && echo 256 || echo 2048) \
		$$(mktemp -d) $$( [ -d $$seeds ] && echo $$seeds) || exit 1; done

# The test tiers (tests/run.sh). `make check`: what needs no root, as whoever runs make:
# the unit tests (plain and ASan+UBSan), the web UI's model (node --test) and the fuzz
# targets' short runs. OUTPUT=DIR builds elsewhere (a checkout you may not write).
# `make unit-test`: the unit tests; those of tests/unit/root/ only as root (else counted
# as skipped). `make integration-test`: the integration and browser tests, as root.
RUN_TESTS := env SLIDEOPS_BUILD=$(abspath $(OUTPUT)) tests/run.sh
check: all $(UNIT_BINS) $(ASAN_BINS) $(FUZZ_BINS)
	$(Q)$(RUN_TESTS) check
unit-test: $(UNIT_BINS) $(ASAN_BINS) $(OUTPUT)/slideops
	$(Q)$(RUN_TESTS) unit
integration-test: $(OUTPUT)/slideops
	$(Q)$(call as_root,$(RUN_TESTS) integration)

# `make test`: dependencies, build, every test: the check tier as whoever runs make, then
# the root tier (the unit tests of tests/unit/root/, integration and browser tests: real
# BPF, real cgroups) elevated with as_root; one closing line over both.
test: deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BINS) $(ASAN_BINS) $(FUZZ_BINS)
	$(Q)rm -f $(OUTPUT)/tests/check.counts
	$(Q)$(RUN_TESTS) --save $(OUTPUT)/tests/check.counts check || true
	$(Q)$(call as_root,$(RUN_TESTS) --after $(OUTPUT)/tests/check.counts root)

# `make kernel-test`: the kernel matrix (tests/kernels/run.sh): Debian's 6.1 and 6.12 kernels
# booted in qemu, check and captures inside each. KERNEL_TEST=long: the long form.
kernel-test: deps
	$(Q)$(MAKE) --no-print-directory all $(OUTPUT)/tests/root/test_verifier_budget
	$(Q)$(call as_root,env KERNEL_TEST=$(KERNEL_TEST) tests/kernels/run.sh)

# `make run`: dependencies, build, the main job (RUN_COMMAND, as root).
run: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(call as_root,$(RUN_COMMAND))

# `make fresh-check`: `make run` from a clean clone of HEAD on a fresh Debian 12 root
# (debootstrap minbase, kept in build/fresh/) with only make and git added, in a chroot;
# see tests/fresh-check.sh. Run it whenever the Makefile, the README or .ci/run change.
fresh-check:
	$(Q)$(call apt_install,debootstrap git curl python3)
	$(Q)$(call as_root,tests/fresh-check.sh)

# `make install-agent`: the binary and the agent's systemd unit (dist/slideops-agent.service,
# its paths filled in), under DESTDIR for packaging; starts nothing (docs/agent.md).
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DOCDIR  ?= $(PREFIX)/share/doc/slideops
UNITDIR ?= /etc/systemd/system
install-agent: $(OUTPUT)/slideops
	$(Q)install -D -m 0755 $(OUTPUT)/slideops $(DESTDIR)$(BINDIR)/slideops
	$(Q)install -d -m 0755 $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)
	$(Q)sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' \
		dist/slideops-agent.service > $(DESTDIR)$(UNITDIR)/slideops-agent.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/slideops-agent.service
	$(Q)install -m 0644 docs/agent.md docs/protocol.md $(DESTDIR)$(DOCDIR)/
	$(Q)echo "installed $(DESTDIR)$(BINDIR)/slideops and $(DESTDIR)$(UNITDIR)/slideops-agent.service;" \
		"set SLIDEOPS_WORKSPACE in /etc/default/slideops-agent, then systemctl enable --now slideops-agent"

bench: bench-deps all
	$(Q)bench/run.sh

# --one-file-system: what a killed fresh-check left mounted in build/fresh/root (/dev,
# /sys) is never descended into.
clean:
	$(call msg,CLEAN)
	$(Q)rm -rf --one-file-system $(OUTPUT)

-include $(shell find $(OUTPUT)/obj $(OUTPUT)/asan/obj $(OUTPUT)/fuzz/obj -name '*.d' 2>/dev/null)
