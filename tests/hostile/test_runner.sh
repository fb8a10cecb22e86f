# tests/hostile/test_runner.sh: `diagc test` bounds every test and file by
# --timeout from the parent (process groups), whatever the test does with
# signals, pipes or child processes; paths in test files are relative to
# the test file; a --filter that matches nothing is an error.

case $DIAGC in /*) H_DIAGC=$DIAGC ;; *) H_DIAGC=$ROOT/$DIAGC ;; esac

# a model for tests that compile one
H_MODEL='return diagram "d" { system { "c", leaf "C" { discrete_state { "x", default = { 0 } } } } }'
H_FFI='local ffi = require("ffi")
pcall(ffi.cdef, "typedef void (*h_sighandler)(int); h_sighandler signal(int, h_sighandler); int sigprocmask(int, const void *, void *); int getpid(void); int kill(int, int); int close(int);")'

# hrunner NAME LUA: writes $T/t_test.lua (H_FFI first) and runs it with --timeout 1
hrunner() {
  hcase "test_runner.$1"
  printf '%s\n%s\n' "$H_FFI" "$2" | sed "s#@T@#$T#g" >"$T/t_test.lua"
  hrun --timeout 30 -- "$DIAGC" test "$T/t_test.lua" --timeout 1
}

hrunner ignores_sigalrm 'test("stubborn", function() ffi.C.signal(14, ffi.cast("h_sighandler", 1)) while true do end end)
test("after", function() end)'
expect_exit 1
expect_stdout_match 'FAIL stubborn: timed out after 1 s'
expect_stdout_match 'ok after'
expect_within 8
hdone

hrunner blocks_sigalrm 'test("blocked", function()
  local set = ffi.new("uint64_t[16]"); set[0] = 0x2000 -- SIGALRM
  ffi.C.sigprocmask(0, set, nil) while true do end end)'
expect_exit 1
expect_stdout_match 'FAIL blocked: timed out after 1 s'
expect_within 8
hdone

hrunner stops_itself 'test("stopped", function() ffi.C.kill(ffi.C.getpid(), 19) end)'
expect_exit 1
expect_stdout_match 'FAIL stopped: timed out after 1 s'
expect_within 8
hdone

hrunner closes_pipe_and_hangs 'test("closed", function()
  for fd = 3, 255 do ffi.C.close(fd) end
  ffi.C.signal(14, ffi.cast("h_sighandler", 1)) while true do end end)'
expect_exit 1
expect_stdout_match 'FAIL closed: timed out after 1 s'
expect_within 8
hdone

# a background process that keeps the result pipe open does not stall the
# run, and is killed with the test's process group
hrunner grandchild_holds_pipe 'test("background", function() os.execute("sleep 20 &") end)
test("next", function() end)'
expect_exit 0
expect_stdout_match 'ok background'
expect_stdout_match '2 passed, 0 failed'
expect_within 5
hdone

hrunner grandchild_killed 'test("leaves", function() os.execute("(sleep 2; touch @T@/MARKER) >/dev/null 2>&1 &") end)'
expect_exit 0
sleep 3
expect_no_marker
hdone

hrunner setsid_grandchild 'test("escapes", function() os.execute("setsid sleep 6 &") end)'
expect_exit 0
expect_stdout_match 'ok escapes'
expect_within 4
hdone

hrunner toplevel_ignores_sigalrm 'ffi.C.signal(14, ffi.cast("h_sighandler", 1))
test("never", function() end)
while true do end'
expect_exit 1
expect_stdout_match 't_test\.lua: top level timed out after 1 s'
expect_within 12
hdone

hrunner toplevel_grandchild 'os.execute("sleep 20 &")
test("fine", function() end)'
expect_exit 0
expect_stdout_match 'ok fine'
expect_within 5
hdone

hcase test_runner.filter_matches_nothing
printf 'test("alpha", function() end)\n' >"$T/t_test.lua"
hrun -- "$DIAGC" test "$T/t_test.lua" --filter zzz
expect_exit 2
expect_error "--filter 'zzz' matches no test"
hdone

# diagc.jit("model.lua") and dsl.import are relative to the test file
hcase test_runner.jit_relative
mkdir -p "$T/proj/tests"
printf '%s\n' "$H_MODEL" >"$T/proj/tests/model.lua"
cat >"$T/proj/tests/m_test.lua" <<'EOF'
local m = diagc.jit("model.lua")
test("relative", function() eq(m:context():get("c.x"), 0) end)
EOF
hrun -- sh -c "cd / && exec '$H_DIAGC' test '$T/proj/tests/m_test.lua'"
expect_exit 0
expect_stdout_match 'ok relative'
hdone

hcase test_runner.import_relative
mkdir -p "$T/proj/tests/lib"
printf 'return leaf "G" { discrete_state { "x", default = { 0 } } }\n' >"$T/proj/tests/lib/g.lua"
cat >"$T/proj/tests/i_test.lua" <<'EOF'
local dsl = diagc.dsl
local G = dsl.import("lib/g.lua")
test("import", function() truthy(G ~= nil) end)
EOF
hrun -- sh -c "cd '$T' && exec '$H_DIAGC' test proj/tests/i_test.lua"
expect_exit 0
expect_stdout_match 'ok import'
hdone

hcase test_runner.jit_absolute
mkdir -p "$T/a" "$T/b"
printf '%s\n' "$H_MODEL" >"$T/b/model.lua"
printf 'local m = diagc.jit("%s")\ntest("absolute", function() eq(m:context():get("c.x"), 0) end)\n' \
  "$T/b/model.lua" >"$T/a/m_test.lua"
hrun -- "$DIAGC" test "$T/a/m_test.lua"
expect_exit 0
expect_stdout_match 'ok absolute'
hdone

# a test process does not outlive a runner that is killed (it sits in its
# own process group, out of reach of the terminal's Ctrl-C)
hcase test_runner.parent_killed
printf '%s\n%s\n' "$H_FFI" "test(\"spin\", function()
  local f = io.open(\"$T/pid\", \"w\"); f:write(ffi.C.getpid()); f:close()
  while true do end end)" >"$T/t_test.lua"
"$DIAGC" test "$T/t_test.lua" --timeout 0 >/dev/null 2>&1 &
h_pid=$!
for _ in $(seq 1 100); do [ -s "$T/pid" ] && break; sleep 0.1; done
kill -TERM "$h_pid" 2>/dev/null
wait "$h_pid" 2>/dev/null
sleep 0.5
h_child=$(cat "$T/pid" 2>/dev/null)
check "the test never started" [ -n "$h_child" ]
# (dead but unreaped, a zombie, counts as gone: the container's init may not reap)
h_state=$( [ -n "$h_child" ] && ps -o stat= -p "$h_child" 2>/dev/null)
if [ -n "$h_state" ] && [ "${h_state#Z}" = "$h_state" ]; then
  _h_bad "test process $h_child outlived the runner"
  kill -KILL "$h_child" 2>/dev/null
fi
hdone
