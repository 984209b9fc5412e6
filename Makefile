# gpumemsim - GNU Makefile. Out-of-tree build in build/ (sanitizer build in build/asan/).
#
#   make              build/gpumemsim and build/libgpumemsim.a
#   make check        unit tests (Check), golden end-to-end tests and the validation of the
#                     committed H200 suite, then the unit tests again under ASan+UBSan, then
#                     each fuzz harness for 10 s and its regression inputs (check-fuzz)
#   make check-valgrind   the unit tests under valgrind: no errors, no leaks
#   make capture      the CUDA capture tool (needs nvcc and the Compute Sanitizer headers)
#   make validate     regenerate docs/validation.md from the committed suite
#   make bench        throughput benchmark (docs/performance.md)
#   make fuzz FUZZ_SECONDS=N   run every fuzz harness for N seconds each
#
# Variables: CC, CFLAGS, WERROR=1 (warnings are errors; CI sets it), SANITIZE=address,undefined.

CC      ?= cc
CFLAGS  ?= -O2 -g
BUILD   ?= build
PKG_CONFIG ?= pkg-config
# V=1 shows the full commands
ifeq ($(V),1)
Q :=
else
Q := @
endif

WARNINGS := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wundef -Wcast-align -Wwrite-strings -Wvla -Wpointer-arith \
            -Wold-style-definition -Wmissing-declarations -Wredundant-decls -Wnested-externs \
            -Wimplicit-fallthrough -Wnull-dereference -Wdouble-promotion
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags libzstd inih liblzma 2>/dev/null)
DEPS_LIBS   := $(shell $(PKG_CONFIG) --libs libzstd inih liblzma 2>/dev/null)
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

ALL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L $(WARNINGS) $(CFLAGS) $(SANFLAGS) \
              -MMD -MP -Imodel $(DEPS_CFLAGS)
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)

MODEL_SRC := $(sort $(wildcard model/*.c))
SIM_SRC   := $(sort $(wildcard sim/*.c))
TEST_SRC  := $(sort $(wildcard tests/*.c))
# the capture tool's CUDA-free half, unit-tested on the CPU
CAPTURE_HOST_SRC := $(sort $(wildcard capture/host/*.c))

MODEL_OBJ := $(MODEL_SRC:%.c=$(BUILD)/%.o)
SIM_OBJ   := $(SIM_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ  := $(TEST_SRC:%.c=$(BUILD)/%.o)
CAPTURE_HOST_OBJ := $(CAPTURE_HOST_SRC:%.c=$(BUILD)/%.o)
# sim/ objects except main, so tests can drive the commands in-process
SIM_LIB_OBJ := $(filter-out $(BUILD)/sim/main.o,$(SIM_OBJ))

LIB  := $(BUILD)/libgpumemsim.a
BIN  := $(BUILD)/gpumemsim
TESTBIN := $(BUILD)/tests/run-tests

.PHONY: check-hygiene all check check-unit check-asan check-golden check-validate check-timing check-explain \
        check-explain-html check-tutorial bless-tutorial check-valgrind check-fuzz \
        capture validate bench fuzz clean
all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(MODEL_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	@$(if $(Q),echo "  AR      $@")
	$(Q)$(AR) rcs $@ $^

$(BIN): $(SIM_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $(SIM_OBJ) $(LIB) $(DEPS_LIBS) -lm -o $@

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -Isim -Icapture/host $(CHECK_CFLAGS) -c $< -o $@

$(TESTBIN): $(TEST_OBJ) $(SIM_LIB_OBJ) $(CAPTURE_HOST_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $(TEST_OBJ) $(SIM_LIB_OBJ) $(CAPTURE_HOST_OBJ) $(LIB) $(DEPS_LIBS) $(CHECK_LIBS) -lm -o $@

# ---- tests -------------------------------------------------------------------
check: check-unit check-golden check-validate check-timing check-explain check-explain-html check-tutorial \
       check-hygiene check-asan check-fuzz

check-unit: $(TESTBIN) $(BIN)
	CK_FORK=yes $(TESTBIN)

check-golden: $(BIN)
	tests/golden/run.sh $(BIN)

check-validate: $(BIN)
	@if [ -f tests/validate-suite.sh ]; then tests/validate-suite.sh $(BIN); fi

# the timing model's cycles on the H200 suite, against tests/timing-known.txt
check-timing: $(BIN)
	tests/timing-suite.sh $(BIN)

# gpumemsim explain on shipped captures, and the quoted output of docs/explain.md
check-explain: $(BIN)
	tests/explain-cli.sh $(BIN)

# every header compiles alone; every exported symbol carries its module prefix
check-hygiene: $(LIB)
	CC="$(CC)" tests/hygiene.sh $(LIB)

# gpumemsim explain --format html: well-formed, the model's numbers, escaping, limits
check-explain-html: $(BIN)
	tests/explain-html.sh $(BIN)

# docs/tutorial.md: every quoted command still prints what it quotes; bless-tutorial
# rewrites the quotes from the current output (review the diff before committing)
check-tutorial: $(BIN)
	tests/tutorial.sh $(BIN)

bless-tutorial: $(BIN)
	tests/tutorial.sh $(BIN) --bless

check-asan:
	$(MAKE) --no-print-directory BUILD=build/asan SANITIZE=address,undefined \
	    CFLAGS="-O1 -g" build/asan/tests/run-tests build/asan/gpumemsim
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 CK_FORK=yes \
	    build/asan/tests/run-tests
	tests/golden/run.sh build/asan/gpumemsim

# One process (CK_FORK=no), so that valgrind sees every test to its exit: any
# error, any leaked block (still-reachable ones too) or file descriptor fails.
check-valgrind: $(TESTBIN) $(BIN)
	@command -v valgrind >/dev/null 2>&1 || { echo "check-valgrind: valgrind not found (apt-get install valgrind)"; exit 2; }
	@rm -f $(BUILD)/valgrind.log
	CK_FORK=no valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=all \
	    --show-leak-kinds=all --track-fds=yes -q --log-file=$(BUILD)/valgrind.log $(TESTBIN) \
	    || { cat $(BUILD)/valgrind.log; exit 1; }
	@awk '/Open (file descriptor|AF_)/ { fd = $$0; getline; \
	      if ($$0 !~ /inherited from parent/) { print "check-valgrind: leaked:" fd; bad = 1 } } \
	      END { exit bad }' $(BUILD)/valgrind.log || { cat $(BUILD)/valgrind.log; exit 1; }
	@echo "check-valgrind: no errors, no leaked memory, no leaked file descriptors ($(BUILD)/valgrind.log)"

# ---- capture tool (CUDA) -------------------------------------------------------
capture:
	@$(MAKE) --no-print-directory -C capture

# ---- documentation and benchmarks ---------------------------------------------
validate: $(BIN)
	tests/validate-suite.sh $(BIN) --write-docs

bench: $(BIN)
	@if [ -f bench/run.sh ]; then bench/run.sh $(BIN); else echo "bench: not yet"; fi

fuzz: $(BIN)
	@$(MAKE) --no-print-directory -C fuzz run SANITIZE=address,undefined

# each harness 10 s and every regression input (docs/robustness.md); one line
# and success when clang or libFuzzer is missing
check-fuzz: $(BIN)
	@$(MAKE) --no-print-directory -C fuzz check SANITIZE=address,undefined

clean:
	rm -rf build

-include $(MODEL_OBJ:.o=.d) $(SIM_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(CAPTURE_HOST_OBJ:.o=.d)
