# asteal - top-level build (GNU make).
#
#   make            libasteal (static and shared), its header, and the jobs
#   make check      every test: the normal build, then ASan+UBSan, then TSan
#   make asan       tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make tsan       tests under ThreadSanitizer
#   make fuzz       both fuzz harnesses under libFuzzer (clang), ASan and
#                   UBSan, FUZZ_SECONDS each (default 60): executions and
#                   coverage on stdout (proto/README.md, "Fuzzing")
#   make demo       the demonstration (README.md)
#   make bench      the benchmarks in bench/ (tables on stdout)
#   make deps       the Debian packages of every target (scripts/deps.sh;
#                   demo, check and bench each check their own first)
#
# Each sanitizer build lives in its own folder (build/asan, build/tsan), so
# the three never mix objects.

BUILD   ?= build
SAN     ?=
OPT     ?= -O2
CC      := gcc
CXX     := g++

WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wundef
SANFLAGS =
ifeq ($(SAN),asan)
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
           -fno-omit-frame-pointer
endif
ifeq ($(SAN),tsan)
SANFLAGS = -fsanitize=thread
endif
# make fuzz's build (build/fuzz, clang): everything instrumented for
# libFuzzer's coverage, which only the harnesses' link brings in.
ifeq ($(SAN),fuzz)
SANFLAGS = -fsanitize=fuzzer-no-link,address,undefined \
           -fno-sanitize-recover=undefined -fno-omit-frame-pointer
endif

GEN      = $(BUILD)/gen
# Include paths are per folder (below, after the compile rules).
CPPFLAGS = -D_GNU_SOURCE -MMD -MP
CFLAGS   = -std=c11 $(OPT) -g $(WARN) $(SANFLAGS) -pthread -fPIC
CXXFLAGS = -std=c++17 $(OPT) -g -Wall -Wextra -Werror -pthread
# Each program links the system libraries it uses: every one gets threads
# and libm; whatever speaks the protocol adds protobuf-c; the daemon (and
# the tests of its modules) adds libevent, SQLite and libsystemd.
LDLIBS      = -pthread -lm
PROTO_LIBS  = -lprotobuf-c
DAEMON_LIBS = -levent -lsqlite3 -lsystemd
# The command line's full screen (`jobs --watch`, cli/watch.c): ncursesw,
# as pkg-config gives it.
NCURSES_CFLAGS := $(shell pkg-config --cflags ncursesw 2>/dev/null)
NCURSES_LIBS   := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)

# The protocol: proto/*.proto compiled by protoc-c into $(GEN)/proto, and
# the framing module proto/*.c.  Both form their own archive, which
# asteald, the command line and the load generator link (none of them
# needs the runtime); libasteal carries the same objects itself.
PROTO_DEF = $(wildcard proto/*.proto)
PROTO_GEN = $(PROTO_DEF:proto/%.proto=$(GEN)/proto/%.pb-c.c)
PROTO_HDR = $(PROTO_GEN:.c=.h)
PROTO_OBJ = $(PROTO_GEN:$(GEN)/%.c=$(BUILD)/obj/gen/%.o) \
            $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard proto/*.c))
PROTO_A   = $(BUILD)/lib/libasteal-proto.a

# The pure policy code: A-STEAL's desire estimator and the DEQ allocator
# (policy/*.c: no I/O, no clock).  Its own small archive, so that the
# simulator runs the very code libasteal and asteald run without linking
# either of them.
POLICY_OBJ = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard policy/*.c))
POLICY_A   = $(BUILD)/lib/libasteal-policy.a

# libasteal carries the estimator and the protocol objects itself, so that
# a job links -lasteal alone.
LIB_SRC  = $(wildcard client-lib/*.c)
LIB_ASM  = $(wildcard client-lib/*.S)
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(LIB_ASM:%.S=$(BUILD)/obj/%.o) \
           $(BUILD)/obj/policy/estimator.o $(PROTO_OBJ)

# The OpenMP layer's objects and its library (the rule is below).
OMP_SRC = $(wildcard client-lib/omp/*.c)
OMP_OBJ = $(OMP_SRC:%.c=$(BUILD)/obj/%.o)
OMP_MAP ?= client-lib/omp/libgomp.map
OMPSO   = $(BUILD)/lib/asteal/libgomp.so.1

# The allotment history (history/*.c: the SQLite store and its queries,
# and the pages of a query's answer) is a library of its own, which
# asteald, the command line (`history --db FILE`) and the tests link.
HIST_OBJ = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard history/*.c))
HIST_A   = $(BUILD)/lib/libasteal-history.a

# The daemon's pure core (daemon/core/*.c: every decision asteald makes,
# no I/O, no clock) is an archive of its own beside the policy's, so that
# the simulator and the history's replay run the very decisions asteald
# makes.  Its objects go to obj/core, apart from the daemon's, so that
# they see only the policy and the protocol's search.h.
CORE_OBJ = $(patsubst daemon/core/%.c,$(BUILD)/obj/core/%.o,$(wildcard daemon/core/*.c))
CORE_A   = $(BUILD)/lib/libasteal-core.a

# The daemon's modules (all of daemon/*.c but main.c, and the
# confinement's, daemon/confine/*.c) form an internal archive that asteald
# and the tests link.
DMOD_OBJ = $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out daemon/main.c,$(wildcard daemon/*.c daemon/confine/*.c)))
DLIBA    = $(BUILD)/lib/libasteald.a
SIM_OBJ  = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard sim/*.c))
CLI_OBJ  = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard cli/*.c))
TOOLS    = $(patsubst tools/%.c,$(BUILD)/bin/asteal-%,$(wildcard tools/*.c))
BINS     = $(TOOLS) $(if $(wildcard daemon/main.c),$(BUILD)/bin/asteald) \
           $(if $(SIM_OBJ),$(BUILD)/bin/asteal-sim) \
           $(if $(CLI_OBJ),$(BUILD)/bin/asteal)
LIBA     = $(BUILD)/lib/libasteal.a
LIBSO    = $(BUILD)/lib/libasteal.so
HEADER   = $(BUILD)/include/asteal.h

# A job is jobs/NAME.c with a main(); the other jobs/*.c support them all.
JOB_SUPPORT = jobs/common.c jobs/uts_tree.c
JOB_NAMES   = fib nqueens cilksort matmul uts phases
JOB_SUPPORT_OBJ = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard $(JOB_SUPPORT)))
JOBS        = $(JOB_NAMES:%=$(BUILD)/jobs/%)
JOB_LIBS    = -lcrypto

TEST_SRC = $(wildcard tests/test_*.c)
# make check's build jobs: one more than the CPUs, so that a job waiting
# on the disk or on a CPU another process holds leaves no CPU unused.
CHECK_JOBS ?= $(shell echo $$(($$(nproc 2>/dev/null || echo 2) + 1)))
TESTS    = $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

BENCH_OMP = $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/omp_*.c))
BENCH_TBB = $(patsubst bench/%.cpp,$(BUILD)/bench/%,$(wildcard bench/tbb_*.cpp))
BENCH_SUPPORT_OBJ = $(patsubst %.c,$(BUILD)/obj/bench-support/%.o,$(wildcard $(JOB_SUPPORT)))

.PHONY: all lib bins jobs tests omp-tests check check-here asan tsan fuzz fuzz-bins demo bench bench-bins deps clean FORCE
.DEFAULT_GOAL := all

# Keep object files that pattern rules would otherwise delete as
# intermediates (they are rebuilt only when their sources change).
.SECONDARY:

all: lib bins jobs

lib: $(LIBA) $(LIBSO) $(HEADER) $(OMPSO)

bins: $(BINS)

jobs: $(JOBS)

# The normal build's tests also smoke every benchmark (tests/daemonbench,
# ombench, benchsmoke, benchidle.test.sh), so its tests build their
# programs too; the oneTBB kernels where oneTBB's headers are installed
# (libtbb-dev; scripts/deps.sh check asks for it).
TBB_HDR    = $(wildcard /usr/include/oneapi/tbb.h)
BENCH_SMOKE = $(BUILD)/bench/asteal-spawncost $(BUILD)/bench/asteal-loadgen \
              $(BUILD)/bench/asteal-wirefloor $(BUILD)/bench/asteal-pagefloor \
              $(BUILD)/bench/asteal-dequebench $(BUILD)/bench/asteal-probe $(BUILD)/bench/asteal-histbench \
              $(if $(TBB_HDR),$(BENCH_TBB))

tests: $(TESTS) $(BUILD)/tests/fuzz_frame $(BUILD)/tests/fuzz_daemon $(BUILD)/tests/deq_replay $(JOBS) $(BINS) \
       $(BUILD)/tests/greedy $(BUILD)/tests/pageattack $(BENCH_OMP) $(OMPSO) $(if $(SAN),,$(BENCH_SMOKE)) \
       $(if $(filter tsan,$(SAN)),,omp-tests)

# The OpenMP conformance programs (tests/omp) into $(BUILD)/tests/omp,
# compiled by tests/omp.test.sh itself ahead of its run (those up to date
# are kept); the TSan build skips the suite.
omp-tests: $(OMPSO)
	@OMP_TEST_COMPILE_ONLY=1 ASTEAL_TEST_SAN=$(SAN) sh tests/omp.test.sh $(BUILD)

$(GEN)/proto/%.pb-c.c $(GEN)/proto/%.pb-c.h: proto/%.proto
	@mkdir -p $(@D)
	protoc-c --proto_path=proto --c_out=$(GEN)/proto $<

$(BUILD)/obj/gen/%.o: $(GEN)/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -c -o $@ $<

# Generated headers exist before anything that may include them compiles.
$(BUILD)/obj/%.o: %.c | $(PROTO_HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.S
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# Include paths: each folder's objects see only the folders they include
# from, so a stray dependency between parts fails to compile.  The policy
# code includes nothing else; the protocol includes its generated header;
# the daemon and the command line take asteal.h from client-lib for
# ASTEAL_VERSION only; the jobs and the benchmarks take proto/ for the
# clock (qtime.h) only; the tests see every part they test.
$(BUILD)/obj/client-lib/%.o: CPPFLAGS += -Iclient-lib -Ipolicy -Iproto -I$(GEN)/proto
$(BUILD)/obj/policy/%.o:     CPPFLAGS += -Ipolicy -Iproto
$(BUILD)/obj/proto/%.o:      CPPFLAGS += -Iproto -I$(GEN)/proto
$(BUILD)/obj/core/%.o: daemon/core/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Idaemon/core -Ipolicy -Iproto $(CFLAGS) -c -o $@ $<
$(BUILD)/obj/daemon/%.o:     CPPFLAGS += -Idaemon -Idaemon/core -Idaemon/confine -Ihistory -Ipolicy -Iproto -I$(GEN)/proto -Iclient-lib
$(BUILD)/obj/history/%.o:    CPPFLAGS += -Ihistory -Iproto -I$(GEN)/proto
$(BUILD)/obj/sim/%.o:        CPPFLAGS += -Isim -Ipolicy -Idaemon/core
$(BUILD)/obj/cli/%.o:        CPPFLAGS += -Icli -Ihistory -Iproto -I$(GEN)/proto -Iclient-lib
$(BUILD)/obj/jobs/%.o:       CPPFLAGS += -Ijobs -Iclient-lib -Iproto
$(BUILD)/obj/tests/%.o:      CPPFLAGS += -Itests -Ijobs -Iclient-lib -Ipolicy -Iproto -I$(GEN)/proto -Idaemon -Idaemon/core -Idaemon/confine -Ihistory
$(BUILD)/obj/bench/%.o:      CPPFLAGS += -Iproto

# The jobs' kernels, and their OpenMP and oneTBB versions, align their
# loops to 32 bytes: gcc's default (at most 8 bytes of padding here) left
# where a loop falls to the link, and matmul's inner loop (31 bytes) across
# a 64-byte line ran its product 1.35x slower on one worker (2.02 s against
# 1.51 s for matmul 1536, the same code) than the build whose line it fit.
# Aligned to 32, a loop of 32 bytes or less never spans two lines, so the
# versions compare kernels, not where the linker put them.
KERNEL_ALIGN = -falign-loops=32
$(BUILD)/obj/jobs/%.o $(BUILD)/obj/bench-support/%.o: CFLAGS += $(KERNEL_ALIGN)

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# The shared library exports its API alone: its objects are compiled with
# hidden visibility (asteal.h marks the API ASTEAL_API), and the version
# script client-lib/libasteal.map lists the API in the node ASTEAL_1 and
# makes everything else local.
LIB_MAP = client-lib/libasteal.map
$(BUILD)/obj/client-lib/%.o $(BUILD)/obj/policy/%.o $(BUILD)/obj/proto/%.o \
$(BUILD)/obj/gen/%.o: CFLAGS += -fvisibility=hidden

$(LIBSO): $(LIB_OBJ) $(LIB_MAP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libasteal.so.0 -Wl,--version-script=$(LIB_MAP) \
		-Wl,--no-undefined -o $@.0 $(LIB_OBJ) $(PROTO_LIBS) $(LDLIBS)
	ln -sf libasteal.so.0 $@

# The OpenMP layer (client-lib/omp/): libgomp's ABI on libasteal, so that
# unmodified gcc -fopenmp programs run as adaptive jobs.  A library of its
# own (libgomp.so.1, in a folder of its own that asteal puts first in a
# program's library path) carrying the runtime's objects, hidden; the
# version script exports the GOMP_* and omp_* entry points under
# libgomp's version nodes and nothing else.
$(OMPSO): $(OMP_OBJ) $(LIB_OBJ) $(OMP_MAP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libgomp.so.1 -Wl,--version-script=$(OMP_MAP) \
		-Wl,--no-undefined -o $@ $(OMP_OBJ) $(LIB_OBJ) $(PROTO_LIBS) $(LDLIBS)

$(HEADER): client-lib/asteal.h
	@mkdir -p $(@D)
	cp $< $@

$(BUILD)/jobs/%: $(BUILD)/obj/jobs/%.o $(JOB_SUPPORT_OBJ) $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(JOB_LIBS) $(PROTO_LIBS) $(LDLIBS)

# The internal archives: policy, core, protocol, history, daemon modules.
$(POLICY_A): $(POLICY_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(CORE_A): $(CORE_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(PROTO_A): $(PROTO_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(HIST_A): $(HIST_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(DLIBA): $(DMOD_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

# The daemon: its modules, the history, DEQ from the policy archive, the
# protocol.
$(BUILD)/bin/asteald: $(BUILD)/obj/daemon/main.o $(DLIBA) $(HIST_A) $(CORE_A) $(POLICY_A) $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(DAEMON_LIBS) $(PROTO_LIBS) $(LDLIBS)

# Small tools: tools/NAME.c is the program asteal-NAME; asteal-plot draws
# with the simulator's SVG writer (and includes its header).
$(BUILD)/bin/asteal-plot: $(BUILD)/obj/sim/svg.o
$(BUILD)/obj/tools/plot.o: CPPFLAGS += -Isim

$(BUILD)/bin/asteal-%: $(BUILD)/obj/tools/%.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The simulator: its own code and the policy archive, nothing else.
$(BUILD)/bin/asteal-sim: $(SIM_OBJ) $(CORE_A) $(POLICY_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The command line: a client of the daemon, so the protocol (CPU lists
# included) and nothing of the daemon or the runtime, but, for `history
# --db FILE`, which reads the history file itself (cli/histdb.c), the
# history library and SQLite.

# Where `make install` puts the OpenMP layer (OMP_LIBDIR, mk/install.mk),
# which asteal looks in after ../lib/asteal beside its own folder: a
# generated header, rewritten only when the folder changes, so that an
# install to another PREFIX or LIBDIR rebuilds the one object that uses it.
$(GEN)/cli/paths.h: FORCE
	@mkdir -p $(@D)
	@printf '/* generated by the Makefile: make install'"'"'s folder of the OpenMP layer */\n#define CLI_OMP_DIR "%s"\n' '$(OMP_LIBDIR)' >$@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi
$(BUILD)/obj/cli/runmode.o: $(GEN)/cli/paths.h
$(BUILD)/obj/cli/runmode.o: CPPFLAGS += -I$(GEN)/cli
$(BUILD)/obj/cli/watch.o: CPPFLAGS += $(NCURSES_CFLAGS)
$(BUILD)/bin/asteal: $(CLI_OBJ) $(HIST_A) $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -lsqlite3 $(NCURSES_LIBS) $(PROTO_LIBS) $(LDLIBS)

# The framing fuzzer, standalone (its own mutation loop; no libFuzzer):
# tests/fuzz.test.sh runs it.
$(BUILD)/obj/tests/fuzz_frame.o: CPPFLAGS += -DFUZZ_STANDALONE
$(BUILD)/tests/fuzz_frame: $(BUILD)/obj/tests/fuzz_frame.o $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(PROTO_LIBS) $(LDLIBS)

# The daemon's fuzzer, standalone: the daemon's modules in its process,
# driven over socketpairs (tests/fuzz.test.sh runs it too).
$(BUILD)/obj/tests/fuzz_daemon.o: CPPFLAGS += -DFUZZ_STANDALONE
$(BUILD)/tests/fuzz_daemon: $(BUILD)/obj/tests/fuzz_daemon.o $(DLIBA) $(HIST_A) $(CORE_A) $(POLICY_A) $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(DAEMON_LIBS) $(PROTO_LIBS) $(LDLIBS)

# The harnesses for libFuzzer (make fuzz: BUILD=build/fuzz SAN=fuzz
# CC=clang): the same sources without the standalone main().
$(BUILD)/obj/tests/%.libfuzzer.o: tests/%.c | $(PROTO_HDR)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/fuzz/fuzz_frame: $(BUILD)/obj/tests/fuzz_frame.libfuzzer.o $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(PROTO_LIBS) $(LDLIBS)

$(BUILD)/fuzz/fuzz_daemon: $(BUILD)/obj/tests/fuzz_daemon.libfuzzer.o $(DLIBA) $(HIST_A) $(CORE_A) $(POLICY_A) $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(DAEMON_LIBS) $(PROTO_LIBS) $(LDLIBS)

fuzz-bins: $(BUILD)/fuzz/fuzz_frame $(BUILD)/fuzz/fuzz_daemon

# The daemon test's check that recorded allotments are DEQ's answers: it
# reads the history database (SQLite) and replays it through DEQ and the
# daemon's CPU-list module.
$(BUILD)/tests/deq_replay: $(BUILD)/obj/tests/deq_replay.o $(DLIBA) $(HIST_A) $(CORE_A) $(POLICY_A) $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -lsqlite3 $(LDLIBS)

# The unit tests: each links what any of them needs (the daemon's modules,
# then the policy and protocol archives they call, then the runtime).
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(DLIBA) $(HIST_A) $(CORE_A) $(POLICY_A) $(PROTO_A) $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(DAEMON_LIBS) $(PROTO_LIBS) $(LDLIBS)

# Tables for people (cli/table_draw.c) are drawn by libsmartcols, as pkg-config
# gives it, in asteal and in the test of the output modules.
SMARTCOLS_CFLAGS := $(shell pkg-config --cflags smartcols 2>/dev/null)
SMARTCOLS_LIBS   := $(or $(shell pkg-config --libs smartcols 2>/dev/null),-lsmartcols)
$(BUILD)/obj/cli/table_draw.o: CPPFLAGS += $(SMARTCOLS_CFLAGS)
$(BUILD)/bin/asteal $(BUILD)/tests/test_cliout: LDLIBS += $(SMARTCOLS_LIBS)

# The command line's output modules, tested apart (with the CPU-list
# formatter they call).
CLIOUT_OBJ = $(BUILD)/obj/cli/table.o $(BUILD)/obj/cli/table_draw.o $(BUILD)/obj/cli/plot.o $(BUILD)/obj/cli/json.o \
             $(BUILD)/obj/cli/record.o
$(BUILD)/obj/tests/test_cliout.o: CPPFLAGS += -Icli
$(BUILD)/tests/test_cliout: $(BUILD)/obj/tests/test_cliout.o $(CLIOUT_OBJ) $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(PROTO_LIBS) $(LDLIBS)

# What a program is linked with (cli/program.c, which reads its ELF file
# with cli/elffile.c and its libraries with cli/closure.c), tested apart
# against programs the test finds in the build and builds itself.
PROGRAM_OBJ = $(BUILD)/obj/cli/program.o $(BUILD)/obj/cli/closure.o $(BUILD)/obj/cli/elffile.o
$(BUILD)/obj/tests/test_program.o: CPPFLAGS += -Icli
$(BUILD)/tests/test_program: $(BUILD)/obj/tests/test_program.o $(PROGRAM_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

# Benchmark kernels written with OpenMP tasks and oneTBB, for comparison;
# they include the jobs' kernels and support (built without the runtime),
# and proto/ for the clock (qtime.h).
$(BUILD)/obj/bench-support/%.o: CPPFLAGS += -Ijobs -Iproto
$(BUILD)/obj/bench-support/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DJOB_NO_RUNTIME $(CFLAGS) -c -o $@ $<

$(BUILD)/bench/omp_%: bench/omp_%.c $(BENCH_SUPPORT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ijobs -Iproto -DJOB_NO_RUNTIME $(CFLAGS) $(KERNEL_ALIGN) -fopenmp -o $@ $^ $(JOB_LIBS) $(LDLIBS)

$(BUILD)/bench/tbb_%: bench/tbb_%.cpp $(BENCH_SUPPORT_OBJ)
	@mkdir -p $(@D)
	$(CXX) -Ijobs -Iproto -D_GNU_SOURCE -MMD -MP $(CXXFLAGS) $(KERNEL_ALIGN) -o $@ $^ -ltbb $(JOB_LIBS) $(LDLIBS)

# The daemon's load generator: its loop in loadgen.c, the fake jobs
# speaking the protocol (loadjobs.c, their pages in loadpage.c), their
# connections (loadconn.c), the online check (loadcheck.c), what each job
# got and said (loadlog.c) and its check against the history
# (loadhist.c), the CPU time measured (loadcpu.c).
LOADGEN_OBJ = $(patsubst %,$(BUILD)/obj/bench/%.o,loadgen loadjobs loadpage loadconn \
                 loadcheck loadlog loadhist loadcpu)
$(LOADGEN_OBJ): CPPFLAGS += -I$(GEN)/proto
$(BUILD)/bench/asteal-loadgen: $(LOADGEN_OBJ) $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(PROTO_LIBS) $(LDLIBS)

# The floor under the quantum exchange (no daemon); its two processes
# pass the jobs' sockets with wirepass.c.
$(BUILD)/bench/asteal-wirefloor: $(BUILD)/obj/bench/wirefloor.o $(BUILD)/obj/bench/wirepass.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^

# The floor under the exchange through pages (no daemon).
$(BUILD)/bench/asteal-pagefloor: $(BUILD)/obj/bench/pagefloor.o $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(PROTO_LIBS) $(LDLIBS)

# What asteald's history costs per change, the library alone.
$(BUILD)/obj/bench/histbench.o: CPPFLAGS += -Ihistory
$(BUILD)/bench/asteal-histbench: $(BUILD)/obj/bench/histbench.o $(HIST_A) $(PROTO_A)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ -lsqlite3 $(LDLIBS)

# The owner's cost of a public and a private deque entry (libasteal's
# internal deque.h).
$(BUILD)/obj/bench/deque.o: CPPFLAGS += -Iclient-lib
$(BUILD)/bench/asteal-dequebench: $(BUILD)/obj/bench/deque.o $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(PROTO_LIBS) $(LDLIBS)

# How fast each CPU runs, alone and together (bench/run.sh: hostvar, cap).
$(BUILD)/bench/asteal-probe: $(BUILD)/obj/bench/probe.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^

# What a spawn and its sync cost on libasteal, in omp_overhead's units
# (bench/omp.sh sets an OpenMP task's cost against it).
$(BUILD)/obj/bench/spawncost.o: CPPFLAGS += -Iclient-lib
$(BUILD)/bench/asteal-spawncost: $(BUILD)/obj/bench/spawncost.o $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(PROTO_LIBS) $(LDLIBS)

# OpenBLAS's OpenMP build (libopenblas0-openmp): tests/ompreal_dgemm.c
# linked to it by path, a real OpenMP program of bench/corun's OpenMP mixes
# (tests/ompreal.test.sh builds its own).
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
BLAS_DIR  = /usr/lib/$(MULTIARCH)/openblas-openmp
BLAS_INC  = /usr/include/$(MULTIARCH)/openblas-openmp
REAL_DGEMM = $(if $(wildcard $(BLAS_INC)/cblas.h),$(BUILD)/bench/real_dgemm)
$(BUILD)/bench/real_dgemm: tests/ompreal_dgemm.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -I$(BLAS_INC) -o $@ $< \
		$(BLAS_DIR)/libopenblas.so.0 -Wl,--disable-new-dtags,-rpath,$(BLAS_DIR)

bench-bins: $(BENCH_OMP) $(BENCH_TBB) $(REAL_DGEMM) $(BUILD)/bench/asteal-loadgen $(BUILD)/tests/deq_replay \
            $(BUILD)/bench/asteal-wirefloor $(BUILD)/bench/asteal-pagefloor \
            $(BUILD)/bench/asteal-dequebench $(BUILD)/bench/asteal-probe \
            $(BUILD)/bench/asteal-histbench $(BUILD)/bench/asteal-spawncost

# The Debian packages each target needs (scripts/deps.sh): make deps asks
# for them all; make demo only for the build's and python3.
deps:
	@scripts/deps.sh build demo check bench

# The tests of one build folder (BUILD, SAN) without the dependency check:
# built with a job per CPU, then tests/run.sh (tests that judge time run
# one at a time, the others beside them at idle priority).
check-here:
	$(MAKE) -j$(CHECK_JOBS) tests
	tests/run.sh $(BUILD) $(SAN)

# The normal build's tests, then the ASan build's, then the TSan build's;
# each sanitizer build compiles at idle priority while the tests before it
# run (tests/check.sh).  Its make is named through CHECK_MAKE, not $(MAKE),
# so that make -n prints that line instead of running the tests.
CHECK_MAKE = $(MAKE)
check:
	@scripts/deps.sh check
	$(MAKE) -j$(CHECK_JOBS) tests
	tests/check.sh "$(CHECK_MAKE)" $(CHECK_JOBS) $(BUILD)

asan:
	@scripts/deps.sh check
	$(MAKE) BUILD=build/asan SAN=asan OPT=-O1 check-here

tsan:
	@scripts/deps.sh check
	$(MAKE) BUILD=build/tsan SAN=tsan OPT=-O1 check-here

# Both harnesses under libFuzzer for FUZZ_SECONDS each, from the seeds
# their standalone builds (this build's) write: scripts/fuzz.sh.
FUZZ_SECONDS ?= 60
fuzz: $(BUILD)/tests/fuzz_frame $(BUILD)/tests/fuzz_daemon
	@command -v clang >/dev/null || { echo "make fuzz needs clang (apt-get install clang)"; exit 1; }
	$(MAKE) BUILD=build/fuzz SAN=fuzz CC=clang OPT=-O1 fuzz-bins
	scripts/fuzz.sh build/fuzz $(BUILD) $(FUZZ_SECONDS)

demo:
	@scripts/deps.sh demo
	$(MAKE) all $(BENCH_OMP)
	scripts/demo.sh $(BUILD)

bench:
	@scripts/deps.sh bench
	$(MAKE) all bench-bins
	bench/run.sh $(BUILD)
	bench/adapt.sh $(BUILD)
	bench/corun $(BUILD)

clean:
	rm -rf build

include mk/install.mk
# The SPANK plugin for Slurm, where libslurm-dev is installed.
include slurm/slurm.mk

-include $(shell find $(BUILD)/obj $(BUILD)/bench -name '*.d' 2>/dev/null)
