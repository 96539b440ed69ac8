# Yaia -- build, demo, test, bench, install.
#
#   make demo      build libyaia.so and the example plugins, run the example scenes
#   make test      build and run every test suite (Swift, C, Python, the browser) and a short fuzzing pass
#   make bench     benchmarks (medians, with ratios against baselines of the same run)
#   make tsan      stress test against a thread-sanitized libyaia (debug build)
#   make fuzz      fuzz yaia_execute for FUZZ_SECONDS (600); `make test` runs a short pass
#   make asan      the C and Python suites against an address-sanitized libyaia
#   make install PREFIX=/usr/local   library, headers, pkg-config file, the yaia command, plugins, examples pack
#
# Missing system packages are installed with apt-get, missing Python packages
# with pip; both are checked first, so a second run installs nothing.

SHELL := /bin/bash
.DEFAULT_GOAL := all

PREFIX     ?= /usr/local
SWIFT      ?= swift
CC         ?= cc
PYTHON     ?= python3
# Written once, in Sources/YaiaRuntime/Version.swift.
VERSION    := $(shell sed -n 's/^public let yaiaVersion = "\(.*\)"$$/\1/p' Sources/YaiaRuntime/Version.swift)
ABI_MAJOR  := 1

BUILD      := .build
REL        := $(BUILD)/release
LIB        := $(REL)/libyaia.so
OUT        := $(BUILD)/yaia
PLUGINS    := $(OUT)/plugins
TESTPLUG   := $(OUT)/test-plugins
CBIN       := $(OUT)/bin

CFLAGS     ?= -O2 -g
CWARN      := -std=c11 -Wall -Wextra -Werror
CINC       := -IInclude
# Programs find libyaia.so.1 in the build folder without LD_LIBRARY_PATH.
CLINK      := -L$(REL) -lyaia -Wl,-rpath,$(abspath $(REL)) -lpthread

SWIFT_SOURCES := $(shell find Sources -name '*.swift' -o -name '*.h' -o -name '*.c' -o -name '*.map') Package.swift Include/yaia.h Include/yaia_plugin.h Include/yaia_scene.h

APT_PACKAGES := gcc make pkg-config libffi-dev libsqlite3-dev zlib1g-dev binutils
# `yaia graph --format svg|png` draws with Graphviz's dot; the tests drive `yaia run` in tmux.
APT_PACKAGES += graphviz tmux
# setuptools and wheel: the packaging tests build the wheel offline (pip --no-build-isolation).
# jsonpatch: an independent JSON Patch implementation the patch tests check against.
# transitions: the state machine bench_python_send.py times Scene.send against.
PY_PACKAGES  := pytest setuptools wheel mypy jsonschema jsonpatch transitions

export YAIA_LIBRARY    := $(abspath $(LIB))
export YAIA_PLUGIN_DIR := $(abspath $(PLUGINS))
export YAIA_TEST_PLUGIN_DIR := $(abspath $(TESTPLUG))

.PHONY: all deps lib examples-pack cli plugins test-packs demo test test-swift test-c test-python test-docs bench tsan install clean

all: lib examples-pack cli plugins

# ---------------------------------------------------------------- dependencies

$(BUILD)/.deps: Makefile
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@for p in $(PY_PACKAGES); do \
	  $(PYTHON) -c "import $$p" 2>/dev/null || $(PYTHON) -m pip install --quiet $$p; \
	done
	@command -v $(SWIFT) >/dev/null || { echo "swift not found: install Swift 6 (https://swift.org/install)"; exit 1; }
	@mkdir -p $(BUILD) && touch $@

deps: $(BUILD)/.deps

# ---------------------------------------------------------------- library

# The release build makes libyaia.so, the examples pack and the `yaia` command
# (YaiaTesting, which imports Swift Testing, builds only for tests). Exclusivity checks are off for the whole build (the runtime
# guards its state with locks; the checks cost a call per class-property
# access on the hot paths): the manifest cannot say so for the products scene
# authors depend on. Every function starts on a 64-byte line: otherwise where
# hot code happens to land moves a round trip by up to 4% from one change to
# the next, even one far from that code; aligned, sends measure a few percent
# faster and the timings steadier. The version scripts are no dependency SwiftPM
# tracks: relink when they change. Nor are these flags: when they change,
# the project's modules are compiled again.
SWIFT_RELEASE_FLAGS := -Xswiftc -static-stdlib -Xswiftc -enforce-exclusivity=unchecked -Xswiftc -warnings-as-errors \
                       -Xswiftc -Xllvm -Xswiftc -align-all-functions=6
SWIFT_RELEASE := $(SWIFT) build -c release $(SWIFT_RELEASE_FLAGS)
EXAMPLES_PACK := $(REL)/libyaia-examples.so
export YAIA_EXAMPLES_PACK := $(abspath $(EXAMPLES_PACK))
# The `yaia` command. Its SwiftPM product is yaia-command ("yaia" names the
# library's); the build puts it at .build/release/yaia.
CLI := $(REL)/yaia
export YAIA_CLI := $(abspath $(CLI))

$(BUILD)/.release: $(BUILD)/.deps $(SWIFT_SOURCES)
	@for m in Sources/YaiaABI/yaia.map:$(LIB) Sources/YaiaExamplesPack/pack.map:$(EXAMPLES_PACK); do \
	  if [ -f $${m#*:} ] && [ $${m%%:*} -nt $${m#*:} ]; then rm -f $${m#*:}; fi; done
	@if [ "$$(cat $(BUILD)/.release-flags 2>/dev/null)" != '$(SWIFT_RELEASE_FLAGS)' ]; then \
	  rm -rf $(REL)/Yaia*.build $(REL)/CYaia*.build $(LIB) $(EXAMPLES_PACK); \
	  echo '$(SWIFT_RELEASE_FLAGS)' > $(BUILD)/.release-flags; fi
	$(SWIFT_RELEASE) --product yaia
	$(SWIFT_RELEASE) --product yaia-examples
	$(SWIFT_RELEASE) --product yaia-command
	@ln -sf libyaia.so $(REL)/libyaia.so.$(ABI_MAJOR)
	@ln -sf yaia-command $(CLI)
	@touch $(LIB) $(EXAMPLES_PACK) $(CLI) $@

$(LIB) $(EXAMPLES_PACK) $(CLI): $(BUILD)/.release

lib: $(LIB)

examples-pack: $(EXAMPLES_PACK)

# The command line (Sources/yaia): a host of the C ABI like any other.
cli: $(CLI)

# ---------------------------------------------------------------- plugins and C programs

PLUGIN_CFLAGS := $(CWARN) $(CFLAGS) $(CINC) -fPIC -shared -fvisibility=hidden

$(PLUGINS)/auth.so: Examples/plugins/auth/auth.c Examples/plugins/common/plugin_util.h Include/yaia_plugin.h
	@mkdir -p $(PLUGINS)
	$(CC) $(PLUGIN_CFLAGS) -o $@ $<

# Purpose-built plugins for the loader's failure paths (Tests/plugins/*.c).
TEST_PLUGIN_SRC := $(wildcard Tests/plugins/*.c)
TEST_PLUGINS    := $(patsubst Tests/plugins/%.c,$(TESTPLUG)/%.so,$(TEST_PLUGIN_SRC))

$(TESTPLUG)/%.so: Tests/plugins/%.c Tests/c/gate.h Examples/plugins/common/plugin_util.h Include/yaia_plugin.h
	@mkdir -p $(TESTPLUG)
	$(CC) $(PLUGIN_CFLAGS) -o $@ $< -lpthread

# Built against the plugin header of ABI 1.1, as a plugin of that time was.
$(TESTPLUG)/old_api.so: Tests/plugins/abi-1.1/yaia_plugin.h

# The store example: SQLite through Debian's libsqlite3-dev.
$(PLUGINS)/store.so: Examples/plugins/store/store.c Examples/plugins/common/plugin_util.h Include/yaia_plugin.h
	@mkdir -p $(PLUGINS)
	$(CC) $(PLUGIN_CFLAGS) -o $@ $< -lsqlite3

plugins: $(PLUGINS)/auth.so $(PLUGINS)/store.so

$(CBIN)/login: Examples/c/login.c Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) $(CFLAGS) $(CINC) -o $@ $< $(CLINK)

$(CBIN)/test_%: Tests/c/test_%.c Tests/c/harness.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) $(CFLAGS) $(CINC) -o $@ $< $(CLINK)

$(CBIN)/bench_send: Benchmarks/bench_send.c Benchmarks/bench.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) -O2 $(CINC) -o $@ $< $(CLINK)

$(CBIN)/bench_lists: Benchmarks/bench_lists.c Benchmarks/bench.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) -O2 $(CINC) -o $@ $< $(CLINK)

$(CBIN)/bench_children: Benchmarks/bench_children.c Benchmarks/bench.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) -O2 $(CINC) -o $@ $< $(CLINK)

$(CBIN)/stress: Tests/c/stress.c Tests/c/harness.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) $(CFLAGS) $(CINC) -o $@ $< $(CLINK)

$(CBIN)/bench_packs: Benchmarks/bench_packs.c Benchmarks/bench.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) -O2 $(CINC) -o $@ $< $(CLINK)

$(CBIN)/bench_effects: Benchmarks/bench_effects.c Benchmarks/bench.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) -O2 $(CINC) -o $@ $< $(CLINK) -lsqlite3

# ---------------------------------------------------------------- test scene packs
# Tests/packs/counter.c: a scene pack written in C (the second pack of the
# multi-pack tests), and the broken variants the loader must refuse.
TESTPACK := $(OUT)/test-packs
export YAIA_TEST_PACK_DIR := $(abspath $(TESTPACK))
PACK_FAULTS := future_abi:1 refuses:2 no_reduce:3 bad_name:4 twice:5 takes_login:6 garbage:7 old_size:8 \
               bad_document:9 document_twice:10 old_type:11 state_garbage:12 view_garbage:13 code_internal:14 \
               code_made_up:15 invariants_garbage:16 commands_object:17 patches:18 patch_garbage:19
TEST_PACKS  := $(TESTPACK)/counter.so $(foreach f,$(PACK_FAULTS),$(TESTPACK)/$(firstword $(subst :, ,$(f))).so)

$(TESTPACK)/counter.so: Tests/packs/counter.c Include/yaia_scene.h
	@mkdir -p $(TESTPACK)
	$(CC) $(PLUGIN_CFLAGS) -o $@ $<

$(TESTPACK)/%.so: Tests/packs/counter.c Include/yaia_scene.h
	@mkdir -p $(TESTPACK)
	$(CC) $(PLUGIN_CFLAGS) -DFAULT=$(lastword $(subst :, ,$(filter $*:%,$(PACK_FAULTS)))) -o $@ $<

# Tests/packs/board.c: a C pack whose scene has child scenes, and its
# variants, broken or answering children() otherwise.
BOARD_FAULTS := board_bad_slots:1 board_slots_garbage:2 board_no_children:3 board_children_garbage:4 board_children_object:5 \
                board_same_stale:6 board_same_first:7 board_always_writes:8
TEST_PACKS  += $(TESTPACK)/board.so $(foreach f,$(BOARD_FAULTS),$(TESTPACK)/$(firstword $(subst :, ,$(f))).so)

$(TESTPACK)/board.so: Tests/packs/board.c Include/yaia_scene.h
	@mkdir -p $(TESTPACK)
	$(CC) $(PLUGIN_CFLAGS) -o $@ $<

$(TESTPACK)/board_%.so: Tests/packs/board.c Include/yaia_scene.h
	@mkdir -p $(TESTPACK)
	$(CC) $(PLUGIN_CFLAGS) -DFAULT=$(lastword $(subst :, ,$(filter board_$*:%,$(BOARD_FAULTS)))) -o $@ $<

test-packs: $(TEST_PACKS)
test-swift: test-packs
test-c: test-packs
test-python: test-packs

# ---------------------------------------------------------------- foreign functions (libffi)
# >>> ffi tests and benchmarks: this block, and one recipe line each in
# >>> test-c and bench, belong to the foreign-function tests.
# libyaiatypes.so: the C library test_ffi, Tests/python/test_ffi.py and the
# benchmarks bind (Tests/ffi/typelib.c).
TESTLIB := $(OUT)/lib
export YAIA_TEST_LIB_DIR := $(abspath $(TESTLIB))

$(TESTLIB)/libyaiatypes.so: Tests/ffi/typelib.c Tests/c/gate.h
	@mkdir -p $(TESTLIB)
	$(CC) $(CWARN) $(CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< -lpthread -lm

$(CBIN)/test_ffi: Tests/c/test_ffi.c Tests/c/harness.h Include/yaia.h Include/yaia_plugin.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) $(CFLAGS) $(CINC) -o $@ $< $(CLINK) -lz -lm -ldl

$(CBIN)/bench_ffi: Benchmarks/bench_ffi.c Benchmarks/bench.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) -O2 $(CINC) -o $@ $< $(CLINK) -lm -ldl

test-c: $(TESTLIB)/libyaiatypes.so $(CBIN)/test_ffi
test-python: $(TESTLIB)/libyaiatypes.so
# The direct C calls bench_ffi.py measures the runtime's against.
BENCH_BASELINES := $(OUT)/bench/libyaiabaselines.so
$(BENCH_BASELINES): Benchmarks/baselines.c
	@mkdir -p $(dir $@)
	$(CC) $(CWARN) -O2 -fPIC -shared -fvisibility=hidden -o $@ $< -lm

bench: $(TESTLIB)/libyaiatypes.so $(CBIN)/bench_ffi $(BENCH_BASELINES)
# <<< end of the ffi block

# ---------------------------------------------------------------- flows, snapshots, journal
# >>> flows block: this block, and the recipe lines that run app (demo),
# >>> test_flows and test_files (test-c) and bench_journal (bench), belong to the flows and journal tests.
$(CBIN)/app: Examples/c/app.c Examples/c/peek.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) $(CFLAGS) $(CINC) -o $@ $< $(CLINK)

$(CBIN)/bench_journal: Benchmarks/bench_journal.c Benchmarks/bench.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) -O2 $(CINC) -o $@ $< $(CLINK)

# bench_journal leaves its 100,000-input journal here for bench_journal.py.
BENCH_JOURNAL := $(OUT)/bench/journal-100k.jsonl

demo: $(CBIN)/app
test-c: $(CBIN)/test_flows $(CBIN)/test_files
bench: $(CBIN)/bench_journal
# <<< end of the flows block

# ---------------------------------------------------------------- the notes app (Examples/notes)
# >>> notes block: this block, the recipe lines that drive the notes app in
# >>> demo, and test-notes among test's prerequisites belong to Examples/notes.
# A scene pack built the way its users build theirs: a package of its own
# (with its own .build in Examples/notes) that depends on this one by path.
NOTES      := Examples/notes
NOTES_PACK := $(NOTES)/.build/release/libnotes.so
# The same app as scene documents: a folder the runtime reads, nothing to build.
NOTES_DOCS := Examples/notes-documents
export YAIA_NOTES_PACK := $(abspath $(NOTES_PACK))
# Its sources, and those of the YaiaKit product it is built with.
NOTES_SOURCES := $(shell find $(NOTES)/Sources Sources/YaiaKit Sources/CYaiaScene -name '*.swift' -o -name '*.h' -o -name '*.c' -o -name '*.map') \
                 $(NOTES)/Package.swift Package.swift Include/yaia_scene.h

.PHONY: notes test-notes

# SwiftPM does not track the version script: relink when it changes. Its
# cached build plan would not see a source file added to this package, on
# which the notes package depends by path: the plan is made afresh.
NOTES_SWIFT := --package-path $(NOTES) --disable-build-manifest-caching
$(NOTES_PACK): $(BUILD)/.deps $(NOTES_SOURCES)
	@if [ -f $@ ] && [ $(NOTES)/Sources/NotesPack/notes.map -nt $@ ]; then rm -f $@; fi
	$(SWIFT) build -c release -Xswiftc -static-stdlib $(NOTES_SWIFT)
	@touch $@

$(CBIN)/notes: $(NOTES)/c/notes.c Examples/c/peek.h Include/yaia.h $(LIB)
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) $(CFLAGS) $(CINC) -o $@ $< $(CLINK)

notes: $(NOTES_PACK) $(CBIN)/notes

test-notes: $(BUILD)/.deps
	$(SWIFT) test $(NOTES_SWIFT)

demo: $(NOTES_PACK) $(CBIN)/notes
test-python: $(NOTES_PACK)
# <<< end of the notes block

# ---------------------------------------------------------------- the web shell (yaia.web, Bindings/web)
# >>> web block: this block, the recipe lines that run the notes app in a
# >>> browser (demo) and bench_web.py (bench), and test-web among test's suites
# >>> belong to the web shell.
# The server runs on aiohttp, its loop on uvloop (a loop in C: an action's
# round trip is several loop turns); the browser tests drive Debian's
# Chromium with Playwright, which must never download a browser of its own.
APT_PACKAGES += chromium
PY_PACKAGES  += aiohttp uvloop playwright
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1
WEB_SHOTS    := $(BUILD)/web-screenshots

.PHONY: test-web

test-web: lib $(EXAMPLES_PACK) plugins $(NOTES_PACK)
	PYTHONPATH=Bindings/python:Tests/web $(PYTHON) -m pytest -q Tests/web

demo: plugins
bench: $(NOTES_PACK) plugins
# <<< end of the web block

# ---------------------------------------------------------------- demo

demo: lib $(EXAMPLES_PACK) cli plugins $(CBIN)/login
	@echo "== example/login from C, auth served by the plugin"
	$(CBIN)/login $(EXAMPLES_PACK) $(PLUGINS)/auth.so
	@echo
	@echo "== the example app as a flow from C, auth and store served by plugins"
	$(CBIN)/app $(EXAMPLES_PACK) $(PLUGINS)/auth.so $(PLUGINS)/store.so
	@echo
	@echo "== example/login, example/feed and the example app as a flow from Python"
	PYTHONPATH=Bindings/python $(PYTHON) Examples/python/demo.py
	@echo
	@echo "== a C library as a service, from the command line"
	$(CLI) exec '{"op":"bind","service":"math","library":"libm.so.6","ops":{"pow":"double(double,double)"}}' \
	       '{"op":"perform","effect":{"service":"math","op":"pow","args":[2,10]}}'
	@echo
	@echo "== the notes app (Examples/notes, a scene pack of its own) from C"
	$(CBIN)/notes $(NOTES_PACK) $(PLUGINS)/auth.so $(PLUGINS)/store.so
	@echo
	@echo "== the notes app from Python"
	PYTHONPATH=Bindings/python $(PYTHON) $(NOTES)/python/notes.py $(NOTES_PACK) $(PLUGINS)/auth.so $(PLUGINS)/store.so
	@echo
	@echo "== the notes app as scene documents (Examples/notes-documents) from C, then from Python"
	$(CBIN)/notes $(NOTES_DOCS) $(PLUGINS)/auth.so $(PLUGINS)/store.so
	PYTHONPATH=Bindings/python $(PYTHON) $(NOTES)/python/notes.py $(NOTES_DOCS) $(PLUGINS)/auth.so $(PLUGINS)/store.so
	@echo
	@echo "== the notes app in a browser (Examples/notes-web), headless, over the documents then the pack; screenshots in $(WEB_SHOTS)"
	@echo "   to open it yourself: PYTHONPATH=Bindings/python $(PYTHON) -m yaia.web $(NOTES_DOCS) --plugin-dir $(PLUGINS) --plugin-config store='{\"path\":\"notes.db\"}' --start notes/login --static Examples/notes-web"
	@echo "   then open http://127.0.0.1:8080/ in a browser and sign in as ada@example.com, password hunter2"
	PYTHONPATH=Bindings/python $(PYTHON) Examples/notes-web/demo.py $(NOTES_DOCS) $(PLUGINS) $(WEB_SHOTS)
	PYTHONPATH=Bindings/python $(PYTHON) Examples/notes-web/demo.py $(NOTES_PACK) $(PLUGINS) $(WEB_SHOTS)

# ---------------------------------------------------------------- tests

# The runtime is compiled twice: as users get it (release: the C and Python
# suites, the scenario files, the notes app) and once with the address
# sanitizer and fuzzing coverage (debug: the Swift suites and the fuzzing
# pass). The suites share nothing else, so they run two at a time; each
# one's output is printed whole when it ends, and one failing stops none.
test: $(BUILD)/.deps
	$(MAKE) -k -j2 --output-sync=target test-swift test-c test-docs test-python test-notes test-web fuzz-short

test-c: lib $(EXAMPLES_PACK) plugins $(TEST_PLUGINS) $(CBIN)/test_abi $(CBIN)/test_services $(CBIN)/test_security $(CBIN)/test_grants $(CBIN)/stress $(CBIN)/test_views $(CBIN)/test_children
	$(CBIN)/test_abi
	$(CBIN)/test_views
	$(CBIN)/test_children
	$(CBIN)/test_services
	$(CBIN)/test_security
	$(CBIN)/test_grants
	$(CBIN)/stress
	STRESS_JOURNAL=$(abspath $(OUT))/stress.jsonl $(CBIN)/stress
	$(CBIN)/test_ffi
	$(CBIN)/test_flows
	$(CBIN)/test_files

# The example scenes' scenario files run through the `yaia` command first;
# the notes app's, which name no scenes, against each of its two sources.
test-python: lib $(EXAMPLES_PACK) cli plugins $(TEST_PLUGINS)
	$(CLI) test Examples/scenarios
	$(CLI) test --scenes $(NOTES_DOCS) $(NOTES)/scenarios
	$(CLI) test --scenes $(NOTES_PACK) $(NOTES)/scenarios
	PYTHONPATH=Bindings/python $(PYTHON) -m pytest -q -m "not walkthrough" Tests/python

# The pages whose commands the suite runs as a newcomer would (README.md,
# docs/*.md): they build Swift packages, and need neither the notes app nor
# the test plugins, so they start as soon as the library and the command do.
test-docs: lib $(EXAMPLES_PACK) cli plugins
	PYTHONPATH=Bindings/python $(PYTHON) -m pytest -q -m walkthrough Tests/python

# ---------------------------------------------------------------- JSON Logic
# >>> logic block: this block, and the recipe lines that run
# >>> yaia-bench-logic and bench_logic.py (bench), belong to JSON Logic.
# In the engine (Benchmarks/logic, a Swift program), and from Python beside
# datalogic-py (a JSON Logic engine of PyPI, installed when missing), per rule
# of the JSON Logic conformance suite.
LOGIC_BENCH := $(REL)/YaiaBenchLogic
export YAIA_JSONLOGIC_TESTS ?= $(abspath ../shared/conformance/jsonlogic/tests.json)

$(LOGIC_BENCH): $(BUILD)/.release Benchmarks/logic/main.swift
	$(SWIFT_RELEASE) --product YaiaBenchLogic
	@touch $@

$(BUILD)/.bench-deps: Makefile
	@$(PYTHON) -c "import datalogic_py" 2>/dev/null || $(PYTHON) -m pip install --quiet datalogic-py
	@touch $@

bench: $(LOGIC_BENCH) $(BUILD)/.bench-deps
# <<< end of the logic block

# ---------------------------------------------------------------- paths kept for speed
# Each path that exists only for speed, timed against the general path it
# stands in for, with its gain on the end-to-end row it serves (Benchmarks/paths).
PATHS_BENCH := $(REL)/YaiaBenchPaths

$(PATHS_BENCH): $(BUILD)/.release Benchmarks/paths/main.swift
	$(SWIFT_RELEASE) --product YaiaBenchPaths
	@touch $@

bench: $(PATHS_BENCH)

# ---------------------------------------------------------------- the send path before
# bench_before times yaia_send against the library as it was before the send
# path became one path (commit BEFORE_REV), built from git in a folder of its
# own; bench_before.py counts both in instructions (valgrind).
BEFORE_REV := 60236ba
BEFORE     := $(BUILD)-before
BEFORE_LIB := $(BEFORE)/.build/release/libyaia.so

$(BEFORE_LIB):
	@git cat-file -e '$(BEFORE_REV)^{commit}' 2>/dev/null || \
	  { echo "bench: commit $(BEFORE_REV) is not in this clone (git fetch --unshallow)"; exit 1; }
	rm -rf $(BEFORE) && mkdir -p $(BEFORE)
	git archive $(BEFORE_REV) | tar -x -C $(BEFORE)
	$(MAKE) -C $(BEFORE) lib examples-pack

$(CBIN)/bench_before: Benchmarks/bench_before.c Benchmarks/bench.h
	@mkdir -p $(CBIN)
	$(CC) $(CWARN) -O2 -o $@ $< -ldl

$(BUILD)/.valgrind: Makefile
	@command -v valgrind >/dev/null || { SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq valgrind; }
	@touch $@

# ---------------------------------------------------------------- benchmarks

bench: lib $(EXAMPLES_PACK) $(NOTES_PACK) plugins $(TEST_PLUGINS) $(CBIN)/bench_send $(CBIN)/bench_effects $(CBIN)/bench_packs \
       $(CBIN)/bench_lists $(CBIN)/bench_children $(CBIN)/bench_before $(BEFORE_LIB) $(BUILD)/.valgrind
	$(CBIN)/bench_send $(EXAMPLES_PACK) $(NOTES_PACK) $(NOTES_DOCS)
	$(CBIN)/bench_before $(BEFORE)/.build/release $(REL)
	$(PYTHON) Benchmarks/bench_before.py $(CBIN)/bench_before $(BEFORE)/.build/release $(REL)
	$(CBIN)/bench_effects $(EXAMPLES_PACK)
	YAIA_NOTES_PACK=$(abspath $(NOTES_PACK)) YAIA_NOTES_DOCUMENTS=$(abspath $(NOTES_DOCS)) \
	  PYTHONPATH=Bindings/python $(PYTHON) Benchmarks/bench_send.py
	PYTHONPATH=Bindings/python $(PYTHON) Benchmarks/bench_python_send.py
	$(CBIN)/bench_lists Examples/todo-documents $(EXAMPLES_PACK)
	PYTHONPATH=Bindings/python $(PYTHON) Benchmarks/bench_lists.py Examples/todo-documents
	$(CBIN)/bench_children Benchmarks/children
	$(CBIN)/bench_ffi $(EXAMPLES_PACK)
	YAIA_BENCH_BASELINES=$(abspath $(BENCH_BASELINES)) PYTHONPATH=Bindings/python $(PYTHON) Benchmarks/bench_ffi.py
	@mkdir -p $(dir $(BENCH_JOURNAL))
	$(CBIN)/bench_journal $(EXAMPLES_PACK) $(BENCH_JOURNAL)
	PYTHONPATH=Bindings/python $(PYTHON) Benchmarks/bench_journal.py $(BENCH_JOURNAL)
	$(CBIN)/bench_packs $(EXAMPLES_PACK) $(NOTES_PACK)
	$(LOGIC_BENCH) $(YAIA_JSONLOGIC_TESTS)
	$(PATHS_BENCH) $(EXAMPLES_PACK) Examples/notes-documents
	PYTHONPATH=Bindings/python $(PYTHON) Benchmarks/bench_logic.py $(YAIA_JSONLOGIC_TESTS)
	PYTHONPATH=Bindings/python $(PYTHON) Benchmarks/bench_web.py $(NOTES_PACK) $(PLUGINS)
	PYTHONPATH=Bindings/python $(PYTHON) Benchmarks/bench_inspector.py $(NOTES_PACK) $(PLUGINS)

# ---------------------------------------------------------------- thread sanitizer

# A debug libyaia built with --sanitize=thread (its own scratch path, so the
# release build is untouched) and stress.c built with the Swift toolchain's
# clang, whose TSan runtime matches the library's. The runtime is linked
# statically into the program (the library expects it there); it carries
# libdispatch interceptors, hence libdispatch and BlocksRuntime from the
# toolchain. Fails (exit 66) on any report.
TSAN_SCRATCH := .build-tsan
TSAN_LIB     := $(TSAN_SCRATCH)/debug/libyaia.so
TSAN_CC      ?= /opt/swift/usr/bin/clang
TSAN_RTLIB   := $(abspath $(dir $(TSAN_CC))../lib/swift/linux)
TSAN_BIN     := $(OUT)/tsan
TSAN_OPTIONS_RUN ?= halt_on_error=0 exitcode=66 second_deadlock_stack=1
# Under TSan the full load (8 x 10,000 sends, 10,000 effects) takes about 5
# minutes on 2 cores; this keeps every thread and path at a quarter of it.
TSAN_STRESS  ?= STRESS_SENDS=2500 STRESS_EFFECTS=5000 STRESS_TIMEOUT=900

$(TSAN_LIB): $(BUILD)/.deps $(SWIFT_SOURCES)
	$(SWIFT) build -c debug --sanitize=thread --scratch-path $(TSAN_SCRATCH) --product yaia
	@ln -sf libyaia.so $(TSAN_SCRATCH)/debug/libyaia.so.$(ABI_MAJOR)
	@touch $@

$(TSAN_BIN)/stress: Tests/c/stress.c Tests/c/harness.h Include/yaia.h $(TSAN_LIB)
	@mkdir -p $(TSAN_BIN)
	$(TSAN_CC) -fsanitize=thread $(CWARN) -O1 -g $(CINC) -o $@ $< \
	  -L$(TSAN_SCRATCH)/debug -lyaia -Wl,-rpath,$(abspath $(TSAN_SCRATCH)/debug) \
	  -L$(TSAN_RTLIB) -ldispatch -lBlocksRuntime -Wl,-rpath,$(TSAN_RTLIB) -lpthread

tsan: $(TSAN_BIN)/stress $(EXAMPLES_PACK) test-packs
	TSAN_OPTIONS="$(TSAN_OPTIONS_RUN)" $(TSAN_STRESS) $(TSAN_BIN)/stress
	TSAN_OPTIONS="$(TSAN_OPTIONS_RUN)" $(TSAN_STRESS) STRESS_JOURNAL=$(abspath $(OUT))/tsan/stress.jsonl $(TSAN_BIN)/stress

# ---------------------------------------------------------------- fuzzing and the address sanitizer

# One address-sanitized debug build of the package and its tests, in a
# scratch path of its own (the release build is untouched), serves the Swift
# suites, the fuzzer and `make asan`: its Swift code also carries the coverage
# counters libFuzzer steers by, which cost little where no fuzzer reads them.
# Programs are built with the Swift toolchain's clang, whose ASan and
# libFuzzer runtimes match the library's. docs/fuzzing.md.
FUZZ_SCRATCH := .build-fuzz
FUZZ_REL     := $(FUZZ_SCRATCH)/debug
ASAN_LIB     := $(FUZZ_REL)/libyaia.so
ASAN_PACK    := $(FUZZ_REL)/libyaia-examples.so
ASAN_CC      ?= /opt/swift/usr/bin/clang
ASAN_RT      := $(shell $(ASAN_CC) -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)
ASAN_BIN     := $(OUT)/asan
ASAN_CLINK   := -fuse-ld=lld -L$(FUZZ_REL) -lyaia -Wl,-rpath,$(abspath $(FUZZ_REL)) -lpthread
SWIFT_ASAN   := $(SWIFT) build --build-tests --scratch-path $(FUZZ_SCRATCH) --sanitize=address -Xswiftc -warnings-as-errors \
                -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
SWIFT_TEST_SOURCES := $(shell find Tests -name '*.swift')

FUZZ_SECONDS ?= 600
FUZZ_SHORT   ?= 15
FUZZ_TARGET  := $(FUZZ_SCRATCH)/bin/fuzz_execute
# The scene pack whose answers the fuzz input writes; the target finds it beside itself.
FUZZ_ANSWERS := $(FUZZ_SCRATCH)/bin/fuzz_pack.so
FUZZ_SOURCES := Tests/fuzz/fuzz_execute.c Tests/fuzz/fuzz_surfaces.c Tests/fuzz/json_check.c
# The corpus libFuzzer grows (the first folder it is given: it writes there),
# the seeds derived from the conformance suites and the examples, crash reproducers.
FUZZ_WORK    := $(FUZZ_SCRATCH)/corpus
FUZZ_SEEDS   := $(FUZZ_SCRATCH)/seeds
FUZZ_CRASHES := $(FUZZ_SCRATCH)/artifacts
YAIA_CONFORMANCE_DIR ?= ../shared/conformance/json-parsing
YAIA_JSONLOGIC_TESTS ?= ../shared/conformance/jsonlogic/tests.json
FUZZ_EXAMPLES := $(shell find Examples Tests/documents -name '*.json')
FUZZ_FLAGS   := -dict=Tests/fuzz/yaia.dict -max_len=16384 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
                -artifact_prefix=$(abspath $(FUZZ_CRASHES))/
FUZZ_DIRS    := $(abspath $(FUZZ_WORK) Tests/fuzz/corpus Tests/fuzz/regressions $(FUZZ_SEEDS))
# Each new corpus entry and newly covered function prints a line: keep the
# progress lines and the reports.
FUZZ_QUIET   := grep --line-buffered -v -E '^(\#[0-9]+[[:space:]]+(NEW|REDUCE) |[[:space:]]+NEW_FUNC)'

.PHONY: fuzz fuzz-short asan

$(FUZZ_SCRATCH)/.built: $(BUILD)/.deps $(SWIFT_SOURCES) $(SWIFT_TEST_SOURCES)
	$(SWIFT_ASAN)
	@ln -sf libyaia.so $(FUZZ_REL)/libyaia.so.$(ABI_MAJOR)
	@touch $@

# The Swift suites (`make test`), on this build. Swift Testing only: XCTest would report its zero tests first. Leaks are not
# checked here: test hosts and pack descriptors live for the process by design.
test-swift: $(FUZZ_SCRATCH)/.built
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --scratch-path $(FUZZ_SCRATCH) --disable-xctest

$(FUZZ_TARGET): $(FUZZ_SOURCES) Tests/fuzz/fuzz.h Tests/fuzz/json_check.h Include/yaia.h $(FUZZ_SCRATCH)/.built
	@mkdir -p $(dir $@)
	$(ASAN_CC) -fsanitize=fuzzer,address $(CWARN) -O1 -g $(CINC) -o $@ $(FUZZ_SOURCES) $(ASAN_CLINK) -ldl

$(FUZZ_ANSWERS): Tests/fuzz/fuzz_pack.c Include/yaia_scene.h
	@mkdir -p $(dir $@)
	$(ASAN_CC) -fsanitize=address $(CWARN) -O1 -g $(CINC) -fPIC -shared -fvisibility=hidden -o $@ $< -lpthread

$(FUZZ_SEEDS)/.done: Tests/fuzz/seeds.py $(FUZZ_EXAMPLES)
	$(PYTHON) Tests/fuzz/seeds.py $(FUZZ_SEEDS) $(YAIA_CONFORMANCE_DIR) $(YAIA_JSONLOGIC_TESTS) Examples
	@touch $@

# $(call fuzz_for,SECONDS): every committed input and regression, then that
# long fuzzing, one job (the machine is shared). Fails on a crash, a leak or
# an input that runs longer than 20 s.
define fuzz_for
	@mkdir -p $(FUZZ_WORK) $(FUZZ_CRASHES)
	set -o pipefail; YAIA_FUZZ_PACK=$(abspath $(ASAN_PACK)) $(FUZZ_TARGET) $(FUZZ_FLAGS) \
	  -max_total_time=$(1) $(FUZZ_DIRS) 2>&1 | $(FUZZ_QUIET)
endef

fuzz: $(FUZZ_TARGET) $(FUZZ_ANSWERS) $(FUZZ_SEEDS)/.done
	$(call fuzz_for,$(FUZZ_SECONDS))

# The short pass `make test` runs.
fuzz-short: $(FUZZ_TARGET) $(FUZZ_ANSWERS) $(FUZZ_SEEDS)/.done
	$(call fuzz_for,$(FUZZ_SHORT))

# The C suites and pytest against the address-sanitized library. Python is
# not built with ASan: its runtime comes in by LD_PRELOAD, and CPython's own
# allocations, kept until exit by design, would read as leaks. test_security
# checks that memory stays flat under a flood of events: ASan's quarantine of
# freed blocks (256 MB) would grow it, a small one does not.
# The documentation tests run swift in subprocesses, which would inherit the
# preloaded runtime and refuse it (swift-build dlopens with RTLD_DEEPBIND):
# they find a swift first on PATH that drops it.
ASAN_SHIM  := $(FUZZ_SCRATCH)/shim
ASAN_TESTS := test_abi test_services test_security test_grants stress test_ffi test_flows
# The library is a debug build, several times slower than release: a section
# of a C suite (a million sends in one) gets longer before it counts as hung.
# What holds of the library as shipped (release, the Swift runtime linked in)
# and not of the sanitized debug one.
ASAN_NOT_SHIPPED := --deselect Tests/python/test_library.py::test_swift_runtime_is_linked_in \
                    --ignore Tests/python/test_install.py
# The stress test at a quarter of its load, as under TSan: every thread and
# path, and a journal the debug library replays in minutes.
ASAN_STRESS := STRESS_SENDS=2500 STRESS_EFFECTS=5000 STRESS_TIMEOUT=900
ASAN_ENV   := YAIA_LIBRARY=$(abspath $(ASAN_LIB)) YAIA_EXAMPLES_PACK=$(abspath $(ASAN_PACK)) YAIA_TEST_TIMEOUT=1200

$(ASAN_BIN)/%: Tests/c/%.c Tests/c/harness.h Include/yaia.h Include/yaia_plugin.h $(FUZZ_SCRATCH)/.built
	@mkdir -p $(ASAN_BIN)
	$(ASAN_CC) -fsanitize=address $(CWARN) -O1 -g $(CINC) -o $@ $< $(ASAN_CLINK) -lz -lm -ldl

$(ASAN_SHIM)/swift:
	@mkdir -p $(ASAN_SHIM)
	printf '#!/bin/sh\nunset LD_PRELOAD\nexec %s "$$@"\n' "$$(command -v $(SWIFT))" > $@
	chmod +x $@

asan: $(addprefix $(ASAN_BIN)/,$(ASAN_TESTS)) $(ASAN_SHIM)/swift plugins $(TEST_PLUGINS) test-packs $(TESTLIB)/libyaiatypes.so $(CLI) $(NOTES_PACK)
	$(ASAN_ENV) $(ASAN_BIN)/test_abi
	$(ASAN_ENV) $(ASAN_BIN)/test_services
	$(ASAN_ENV) ASAN_OPTIONS=quarantine_size_mb=8 $(ASAN_BIN)/test_security
	$(ASAN_ENV) $(ASAN_BIN)/test_grants
	$(ASAN_ENV) $(ASAN_STRESS) $(ASAN_BIN)/stress
	$(ASAN_ENV) $(ASAN_STRESS) STRESS_JOURNAL=$(abspath $(ASAN_BIN))/stress.jsonl $(ASAN_BIN)/stress
	$(ASAN_ENV) $(ASAN_BIN)/test_ffi
	$(ASAN_ENV) $(ASAN_BIN)/test_flows
	$(ASAN_ENV) LD_PRELOAD=$(ASAN_RT) ASAN_OPTIONS=detect_leaks=0 PATH=$(abspath $(ASAN_SHIM)):$$PATH \
	  PYTHONPATH=Bindings/python $(PYTHON) -m pytest -q Tests/python $(ASAN_NOT_SHIPPED)

# ---------------------------------------------------------------- install

# The command, the examples pack and the example plugins go beside the
# library: $(PREFIX)/bin/yaia, $(PREFIX)/lib/yaia/ (the pkg-config file
# names both folders: packdir, plugindir). `install-built` installs what is
# built and builds nothing (the install test uses it).
#
# A program built with `pkg-config --libs yaia` must find libyaia.so.1 when it
# starts. In a folder the dynamic linker searches (its defaults and those
# /etc/ld.so.conf lists, like /usr/local/lib on Debian) ldconfig makes it
# known; anywhere else the .pc file's Libs carry -Wl,-rpath,${libdir}.
LIBDIR := $(abspath $(PREFIX))/lib
SYSTEM_LIBDIRS := /lib /usr/lib /lib64 /usr/lib64 \
  $(shell cat /etc/ld.so.conf /etc/ld.so.conf.d/*.conf 2>/dev/null | sed -n 's|^[[:space:]]*\(/[^[:space:]]*\).*|\1|p')
SYSTEM_LIBDIR := $(filter $(LIBDIR) $(LIBDIR)/,$(SYSTEM_LIBDIRS))
PC_RPATH := $(if $(SYSTEM_LIBDIR),,-Wl,-rpath,$${libdir})

.PHONY: install-built
install: lib examples-pack cli plugins
	$(MAKE) --no-print-directory install-built

install-built:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/lib/yaia/plugins
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libyaia.so.$(VERSION)
	ln -sf libyaia.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libyaia.so.$(ABI_MAJOR)
	ln -sf libyaia.so.$(ABI_MAJOR) $(DESTDIR)$(PREFIX)/lib/libyaia.so
	install -m 644 Include/yaia.h Include/yaia_scene.h Include/yaia_plugin.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/yaia
	install -m 755 $(EXAMPLES_PACK) $(DESTDIR)$(PREFIX)/lib/yaia/
	install -m 755 $(PLUGINS)/auth.so $(PLUGINS)/store.so $(DESTDIR)$(PREFIX)/lib/yaia/plugins/
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@RPATH@|$(PC_RPATH)|' \
	  -e '/^Libs:/s|  *| |g' Bindings/c/yaia.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/yaia.pc
ifneq ($(SYSTEM_LIBDIR),)
ifeq ($(DESTDIR),)
	ldconfig || echo "install: run ldconfig as root so that programs find $(LIBDIR)/libyaia.so.$(ABI_MAJOR)"
endif
endif

# What `pip install Bindings/python` puts in the wheel, as DEST=SOURCE, DEST
# in the package's _native folder: Bindings/python/setup.py makes
# `wheel-files`, then reads this list from `print-wheel-files`.
WHEEL_FILES := libyaia.so=$(LIB) libyaia-examples.so=$(EXAMPLES_PACK) yaia=$(CLI) \
               plugins/auth.so=$(PLUGINS)/auth.so plugins/store.so=$(PLUGINS)/store.so

.PHONY: wheel-files print-wheel-files
wheel-files: $(foreach f,$(WHEEL_FILES),$(lastword $(subst =, ,$(f))))

print-wheel-files:
	@printf '%s\n' $(WHEEL_FILES)

clean:
	rm -rf $(BUILD) $(TSAN_SCRATCH) $(FUZZ_SCRATCH)
