# diagc top-level Makefile.
#
#   make            build lib/libdiagc.a, lib/libdiagc.so and bin/diagc (installs missing
#                   system packages first via scripts/install-deps.sh)
#   make test       run tests/run (make test T=lexer runs a subset)
#   make demo       run the two examples
#   make bench      run bench/run (every suite bench/*/run)
#   make fuzz       build and run the libFuzzer targets (tests/fuzz; not in
#                   make test): FUZZ_SECONDS=120 each by default
#   make lexer-check  regenerate generator/lexer/c_lexer.c and fail if it differs
#   make golden     regenerate tests/golden/ after an intended change to the generated C
#   make install    install into PREFIX (default /usr/local; DESTDIR honoured)
#   make uninstall  remove what make install installed (docs/install.md)
#   make clean
#
# Objects go under build/.  Safe with -j.

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:

AR ?= ar
RE2C := $(shell command -v re2c 2>/dev/null)
RE2C_FLAGS := -W -Werror --no-generation-date --no-version

DEPFLAGS = -MMD -MP
HOST_CFLAGS := -std=c99 -Wall -Wextra -Werror -pedantic -O2
RT_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -pedantic -Iruntime/include -fPIC -pthread
ASAN_CFLAGS := -std=c11 -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
               -Wall -Wextra -Iruntime/include -pthread

# Evaluated once, on first use (after `deps` may have installed LuaJIT).
LUAJIT_CFLAGS = $(eval LUAJIT_CFLAGS := $(shell pkg-config --cflags luajit))$(LUAJIT_CFLAGS)
LUAJIT_LIBS = $(eval LUAJIT_LIBS := $(shell pkg-config --libs luajit))$(LUAJIT_LIBS)

TCC_LIB_DIR := $(or $(DIAGC_TCC_LIB),/usr/lib/x86_64-linux-gnu/tcc)

RUNTIME_SRCS := $(sort $(wildcard runtime/src/*.c))
RUNTIME_OBJS := $(patsubst runtime/src/%.c,build/runtime/%.o,$(RUNTIME_SRCS))
ASAN_OBJS := $(patsubst runtime/src/%.c,build/asan/runtime/%.o,$(RUNTIME_SRCS))
LEXER_RE := generator/lexer/c_lexer.re
LEXER_C := generator/lexer/c_lexer.c
HOST_OBJS := build/host/main.o build/host/stop.o build/host/c_lexer.o build/host/lex_lua.o build/host/xml_lua.o \
             build/host/read_source.o

.PHONY: all test demo bench lexer-check golden clean deps check-deps asan-runtime FORCE install uninstall fuzz fuzz-build fuzz-deps

all: lib/libdiagc.a bin/diagc

# ---------------------------------------------------------------------------
# System packages: a cheap check; the install script runs only if it fails.

PROBE = $(shell CC='$(CC)' sh scripts/probe.sh $(1))
CHECK_DEPS = command -v $(firstword $(CC)) >/dev/null 2>&1 \
  && command -v $(AR) >/dev/null 2>&1 \
  && command -v pkg-config >/dev/null 2>&1 \
  && pkg-config --exists luajit \
  && test -n "$$(CC='$(CC)' sh scripts/probe.sh header libtcc.h)" \
  && test -f "$$($(CC) -print-file-name=libtcc.a)" \
  && test -f $(TCC_LIB_DIR)/libtcc1.a \
  && test -n "$$(CC='$(CC)' sh scripts/probe.sh header expat.h)" \
  && test -f /usr/lib/python3/dist-packages/numpy/__init__.py \
  && command -v node >/dev/null 2>&1 \
  && { cmp -s viewer/package-lock.json viewer/node_modules/.diagc-ci-lock \
       || cmp -s viewer/package-lock.json build/viewer/npm-ci-failed.lock; }

deps:
	@$(CHECK_DEPS) || bash scripts/install-deps.sh

# what `deps` checks, without installing (tests/cli/probe.sh)
check-deps:
	@if $(CHECK_DEPS); then echo "check-deps: present"; else echo "check-deps: missing"; exit 1; fi

# ---------------------------------------------------------------------------
# Runtime library

# Rewritten only when the list of runtime sources changes, so that removing
# a source rebuilds the archive.
build/runtime.list: FORCE
	@mkdir -p $(@D)
	@echo '$(RUNTIME_SRCS)' | cmp -s - $@ || echo '$(RUNTIME_SRCS)' > $@

# the linearized contact step's dense row loops gain from -O3's vectorizer
# (bench/grad: the stack's Jacobians 5.2 -> 4.8 steps)
build/runtime/contact_grad.o: RT_CFLAGS += -O3
build/runtime/contact_rows.o: RT_CFLAGS += -O3

build/runtime/%.o: runtime/src/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

lib/libdiagc.a: $(RUNTIME_OBJS) build/runtime.list
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(RUNTIME_OBJS)

# Sanitized copy of the runtime for tests/c (tests/run builds it).
build/asan/runtime/%.o: runtime/src/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) $(DEPFLAGS) -c $< -o $@

build/asan/libdiagc.a: $(ASAN_OBJS) build/runtime.list
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(ASAN_OBJS)

asan-runtime: build/asan/libdiagc.a

# ---------------------------------------------------------------------------
# Optional: the CVODE backend, lib/libdiagc_cvode.{a,so} (diagc/cvode.h,
# runtime/src/cvode/), built only when the SUNDIALS headers are installed
# (scripts/install-deps.sh libsundials-dev), with KLU when SUNDIALS' KLU
# solver and SuiteSparse's headers are there too.  Without them nothing
# is built and nothing is said.  `make cvode-libs` prints the link flags
# a program using it needs after -ldiagc_cvode -ldiagc.

# Probes compile and link real files (scripts/probe.sh says why).
HAS_HEADER = $(call PROBE,header $(1) $(2))
HAS_LIB = $(call PROBE,lib $(1))
HAVE_CVODE := $(call HAS_HEADER,cvode/cvode.h)
ifeq ($(HAVE_CVODE),1)
CVODE_SRCS := $(sort $(wildcard runtime/src/cvode/*.c))
CVODE_OBJS := $(patsubst runtime/src/cvode/%.c,build/cvode/%.o,$(CVODE_SRCS))
ASAN_CVODE_OBJS := $(patsubst runtime/src/cvode/%.c,build/asan/cvode/%.o,$(CVODE_SRCS))
CVODE_CFLAGS :=
CVODE_LIBS := -lsundials_cvode -lsundials_nvecserial
ifeq ($(call HAS_HEADER,sunlinsol/sunlinsol_klu.h,-I/usr/include/suitesparse)$(call HAS_LIB,sundials_sunlinsolklu),11)
CVODE_CFLAGS += -DDIAGC_CVODE_WITH_KLU -I/usr/include/suitesparse
CVODE_LIBS += -lsundials_sunlinsolklu -lsundials_sunmatrixsparse -lklu
endif

all: lib/libdiagc_cvode.a lib/libdiagc_cvode.so

build/cvode/%.o: runtime/src/cvode/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(CVODE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

lib/libdiagc_cvode.a: $(CVODE_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(CVODE_OBJS)

# diagc_sim_* stay undefined: they come from libdiagc (linked by the
# program, or bin/diagc itself when it loads this library at run time)
lib/libdiagc_cvode.so: $(CVODE_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared $(LDFLAGS) -o $@ $(CVODE_OBJS) $(CVODE_LIBS) -lm

build/asan/cvode/%.o: runtime/src/cvode/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(ASAN_CFLAGS) $(CVODE_CFLAGS) $(DEPFLAGS) -c $< -o $@

build/asan/libdiagc_cvode.a: $(ASAN_CVODE_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(ASAN_CVODE_OBJS)

asan-cvode: build/asan/libdiagc_cvode.a

cvode-libs:
	@echo $(CVODE_LIBS)

-include $(CVODE_OBJS:.o=.d) $(ASAN_CVODE_OBJS:.o=.d)
else
asan-cvode cvode-libs:
	@echo "the CVODE backend needs libsundials-dev: scripts/install-deps.sh libsundials-dev" >&2; exit 1
endif

.PHONY: asan-cvode cvode-libs probe

# Optional: lib/libdiagc_mpi.so, the MPI calls of `diagc sweep --mpi`
# (tools/mpi/diagc_mpi.c, docs/sweep.md), built only when Open MPI's mpicc
# is installed (scripts/install-deps.sh libopenmpi-dev).  Without it
# nothing is built and --mpi says what to install.
HAVE_MPI := $(shell command -v mpicc >/dev/null 2>&1 && echo 1)
ifeq ($(HAVE_MPI),1)
all: lib/libdiagc_mpi.so

lib/libdiagc_mpi.so: tools/mpi/diagc_mpi.c | deps
	@mkdir -p $(@D)
	mpicc -std=c99 -O2 -Wall -Wextra -Werror -fPIC -shared $(LDFLAGS) -o $@ $<
endif

# `make probe H=HEADER` / `make probe L=LIB`: what the Makefile's own
# probes answer (1 or nothing); tests/cli/probe.sh checks them.
probe:
	@echo "header=$(if $(H),$(call HAS_HEADER,$(H))) lib=$(if $(L),$(call HAS_LIB,$(L))) cvode=$(HAVE_CVODE)"

# ---------------------------------------------------------------------------
# bin/diagc

ifneq ($(RE2C),)
# (re2c writes the output's name into #line directives: generate in place)
$(LEXER_C): $(LEXER_RE)
	$(RE2C) $(RE2C_FLAGS) -o $@ $< && chmod 644 $@
endif

build/host/main.o: generator/host/main.c | deps
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Igenerator/lexer $(LUAJIT_CFLAGS) -c $< -o $@

build/host/stop.o: generator/host/stop.c | deps
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) $(LUAJIT_CFLAGS) -c $< -o $@

build/host/xml_lua.o: generator/host/xml_lua.c | deps
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) $(LUAJIT_CFLAGS) -c $< -o $@

build/host/read_source.o: generator/host/read_source.c | deps
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) $(LUAJIT_CFLAGS) -c $< -o $@

build/host/lex_lua.o: generator/lexer/lex_lua.c | deps
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Igenerator/lexer $(LUAJIT_CFLAGS) -c $< -o $@

build/host/c_lexer.o: $(LEXER_C) | deps
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Igenerator/lexer -c $< -o $@

# -rdynamic and the whole
# runtime archive let TinyCC-compiled code and LuaJIT's ffi.C find diagc_*.
bin/diagc: $(HOST_OBJS) lib/libdiagc.a
	@mkdir -p $(@D)
	$(CC) -rdynamic $(LDFLAGS) -o $@ $(HOST_OBJS) \
	  -Wl,--whole-archive lib/libdiagc.a -Wl,--no-whole-archive \
	  $(LUAJIT_LIBS) -ltcc -lexpat -ldl -lm -lpthread

# ---------------------------------------------------------------------------
# The viewer's bundle (docs/viewer.md): viewer/src bundled with esbuild from
# the pinned packages that scripts/install-deps.sh installed with `npm ci`
# into viewer/node_modules.  Built, not committed: the project commits no
# fetched code.  `diagc view` inlines it into each page (no node at run time).

VIEWER_SRCS := $(sort $(wildcard viewer/src/*))

all: build/viewer/viewer.js

# Where `npm ci` could not reach the registry (install-deps.sh warned, and
# left build/viewer/npm-ci-failed.lock) the bundle is not built; diagc view
# and run --html then refuse with one line naming the cause.
build/viewer/viewer.js: $(VIEWER_SRCS) viewer/build.mjs viewer/package-lock.json | deps
	@if cmp -s viewer/package-lock.json viewer/node_modules/.diagc-ci-lock; then \
	  echo "node viewer/build.mjs build/viewer"; node viewer/build.mjs build/viewer; \
	fi

# ---------------------------------------------------------------------------
# bin/diagc-topology: iRobot topology replay on the executor (tools/topology)

TOPOLOGY_SRCS := $(sort $(wildcard tools/topology/*.c))
TOPOLOGY_OBJS := $(patsubst tools/topology/%.c,build/tools/topology/%.o,$(TOPOLOGY_SRCS))

all: bin/diagc-topology

build/tools/topology/%.o: tools/topology/%.c | deps
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

bin/diagc-topology: $(TOPOLOGY_OBJS) lib/libdiagc.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(TOPOLOGY_OBJS) lib/libdiagc.a -lpthread -lm

-include $(TOPOLOGY_OBJS:.o=.d)

# ---------------------------------------------------------------------------
# Version, shared runtime, install (docs/install.md)
#
# The version is kept in one place, the file VERSION; make copies it into
# runtime/include/diagc/version.h (committed), the shared library's name and
# soname, diagc.pc and the CMake package (scripts/install.sh); the generator
# reads VERSION itself (generator/diagc/compile.lua).

VERSION := $(shell cat VERSION)
VERSION_PARTS := $(subst ., ,$(VERSION))
ifneq ($(words $(VERSION_PARTS)),3)
$(error VERSION must hold MAJOR.MINOR.PATCH, got '$(VERSION)')
endif
VERSION_MAJOR := $(word 1,$(VERSION_PARTS))
SHLIB := libdiagc.so.$(VERSION)
SONAME := libdiagc.so.$(VERSION_MAJOR)
PREFIX ?= /usr/local
DESTDIR ?=

all: lib/$(SHLIB)

runtime/include/diagc/version.h: VERSION
	@sed -e 's/^#define DIAGC_VERSION_STRING .*/#define DIAGC_VERSION_STRING "$(VERSION)"/' \
	  -e 's/^#define DIAGC_VERSION_MAJOR .*/#define DIAGC_VERSION_MAJOR $(word 1,$(VERSION_PARTS))/' \
	  -e 's/^#define DIAGC_VERSION_MINOR .*/#define DIAGC_VERSION_MINOR $(word 2,$(VERSION_PARTS))/' \
	  -e 's/^#define DIAGC_VERSION_PATCH .*/#define DIAGC_VERSION_PATCH $(word 3,$(VERSION_PARTS))/' \
	  $@ > $@.tmp
	@if cmp -s $@ $@.tmp; then rm -f $@.tmp; touch $@; else mv $@.tmp $@; echo "version.h: $(VERSION)"; fi

build/runtime/version.o build/asan/runtime/version.o: runtime/include/diagc/version.h

lib/$(SHLIB): $(RUNTIME_OBJS) build/runtime.list
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined $(LDFLAGS) -o $@ $(RUNTIME_OBJS) -lm -lpthread
	ln -sfn $(SHLIB) lib/$(SONAME)
	ln -sfn $(SONAME) lib/libdiagc.so

# PREFIX and DESTDIR reach scripts/install.sh verbatim: single-quoted, so
# neither make nor the shell expands or runs anything in them ($(value):
# make leaves a '$' as it is).  The script refuses what it cannot install
# (a relative or empty PREFIX, characters the installed files cannot
# carry); `install_check` turns its answer into make's one-line error,
# before anything is installed.
# (A newline cannot be quoted into a recipe line: make refuses it itself.)
define newline


endef
shell_quote = '$(subst ','\'',$(1))'
INSTALL_ENV = PREFIX=$(call shell_quote,$(value PREFIX)) DESTDIR=$(call shell_quote,$(value DESTDIR))
install_check = $(foreach v,PREFIX DESTDIR,$(if $(findstring $(newline),$(value $(v))),$(error \
  scripts/install.sh: $(v) holds a newline; choose a path without control characters)))$(if $(1),$(error $(1)))

install: all
	$(call install_check,$(shell $(INSTALL_ENV) bash scripts/install.sh check 2>&1))
	@$(INSTALL_ENV) bash scripts/install.sh install

uninstall:
	$(call install_check,$(shell $(INSTALL_ENV) bash scripts/install.sh check 2>&1))
	@$(INSTALL_ENV) bash scripts/install.sh uninstall

# ---------------------------------------------------------------------------
# Fuzzing (tests/fuzz, docs/fuzzing.md): libFuzzer targets built with clang,
# ASan and UBSan.  Not part of `make test` or CI; bench/fuzz/run runs it.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 120
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer \
               -Wall -Wextra -Igenerator/lexer

# libFuzzer comes with clang's runtime package (libclang-rt-14-dev on Debian 12)
fuzz-deps:
	@echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { (void)d; (void)n; return 0; }' \
	  | $(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1 \
	  || bash scripts/install-deps.sh libclang-rt-14-dev

build/fuzz/fuzz_lexer: tests/fuzz/fuzz_lexer.c $(LEXER_C) generator/lexer/c_lexer.h | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_lexer.c $(LEXER_C)

# the spec pipeline with what bin/diagc gives it: the C lexer, the XML
# parser (URDF import), read_source, and the runtime (world/step.lua asks
# its workspace sizes through LuaJIT's ffi.C: -rdynamic, whole archive);
# fuzz_urdf is the same target fed URDF documents (tests/fuzz/fuzz_spec.c)
FUZZ_SPEC_SRC := tests/fuzz/fuzz_spec.c $(LEXER_C) generator/lexer/lex_lua.c generator/host/xml_lua.c \
                 generator/host/read_source.c
FUZZ_SPEC_LIBS = -rdynamic -Wl,--whole-archive lib/libdiagc.a -Wl,--no-whole-archive $(LUAJIT_LIBS) \
                  -lexpat -lm -ldl -lpthread

build/fuzz/fuzz_spec: $(FUZZ_SPEC_SRC) generator/lexer/c_lexer.h generator/host/xml_lua.h \
                      generator/host/read_source.h lib/libdiagc.a | fuzz-deps deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Igenerator/host -DDIAGC_ROOT='"$(CURDIR)"' $(LUAJIT_CFLAGS) -o $@ \
	  $(FUZZ_SPEC_SRC) $(FUZZ_SPEC_LIBS)

build/fuzz/fuzz_urdf: $(FUZZ_SPEC_SRC) generator/lexer/c_lexer.h generator/host/xml_lua.h \
                      generator/host/read_source.h lib/libdiagc.a | fuzz-deps deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Igenerator/host -DDIAGC_FUZZ_URDF -DDIAGC_ROOT='"$(CURDIR)"' $(LUAJIT_CFLAGS) \
	  -o $@ $(FUZZ_SPEC_SRC) $(FUZZ_SPEC_LIBS)

fuzz-build: build/fuzz/fuzz_lexer build/fuzz/fuzz_spec build/fuzz/fuzz_urdf

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run

# ---------------------------------------------------------------------------

test: all asan-runtime
	tests/run $(T)

demo: all
	bin/diagc run examples/discrete_counter.lua --until 0.06
	bin/diagc run examples/pendulum.lua --until 2

bench: all
	@if [ -x bench/run ]; then bench/run; \
	elif [ -f bench/run ]; then bash bench/run; \
	else echo "make bench: no bench/run"; fi

golden: all
	scripts/update-golden.sh

lexer-check:
	@command -v re2c >/dev/null 2>&1 || { echo "lexer-check: re2c is not installed" >&2; exit 1; }
	@mkdir -p build
	@cp -p $(LEXER_C) build/c_lexer.saved.c
	re2c $(RE2C_FLAGS) -o $(LEXER_C) $(LEXER_RE) && chmod 644 $(LEXER_C)
	@# unchanged: keep the old mtime so nothing is rebuilt
	@if cmp -s build/c_lexer.saved.c $(LEXER_C); then touch -r build/c_lexer.saved.c $(LEXER_C); fi
	git diff --exit-code -- $(LEXER_C)

clean:
	rm -rf build
	rm -f bin/diagc bin/diagc-topology lib/libdiagc.a lib/libdiagc.so lib/libdiagc.so.* \
	  lib/libdiagc_cvode.a lib/libdiagc_cvode.so lib/libdiagc_mpi.so
	-rmdir bin lib 2>/dev/null || true

-include $(RUNTIME_OBJS:.o=.d) $(ASAN_OBJS:.o=.d) $(HOST_OBJS:.o=.d)
