# tests/hostile/sizes.sh: sizes and shapes the spec loader must refuse cleanly.

hcase sizes.empty_spec
: >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: the spec must return a diagram'
expect_absent "$T/out.c" "$T/out.h"
hdone

H_LEAF='local C = leaf "C" { discrete_state { "x", default = { 0 } } }'

# diagrams nested deeper than the limit (200): an error at the spec line,
# before any recursive walk (no Lua stack overflow)
hcase sizes.deep_nesting
cat >"$T/spec.lua" <<EOF
$H_LEAF
local d = diagram "d0" { system { "c", C } }
for i = 1, 5000 do d = diagram("d" .. i) { system { "s", d } } end
return d
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:3: diagrams are nested more than 200 deep here'
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase sizes.nesting_within_limit
cat >"$T/spec.lua" <<EOF
$H_LEAF
local d = diagram "d0" { system { "c", C } }
for i = 1, 150 do d = diagram("d" .. i) { system { "s", d } } end
return d
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 0
check "out.c not written" test -s "$T/out.c"
hdone

hcase sizes.deep_nesting_graph
cat >"$T/spec.lua" <<EOF
$H_LEAF
local d = diagram "d0" { system { "c", C } }
for i = 1, 3000 do d = diagram("d" .. i) { system { "s", d } } end
return d
EOF
hrun -- "$DIAGC" graph "$T/spec.lua"
expect_exit 2
expect_error 'spec\.lua:3: diagrams are nested more than 200 deep'
hdone

# a diagram containing itself, made by changing its arguments afterwards
hcase sizes.cyclic_diagram
cat >"$T/spec.lua" <<EOF
$H_LEAF
local args = { "c", C }
local d = diagram "d" { system(args) }
args[2] = d
return d
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:3: diagram "d" contains itself'
hdone

hcase sizes.cyclic_through_two
cat >"$T/spec.lua" <<EOF
$H_LEAF
local args = { "c", C }
local a = diagram "a" { system(args) }
local b = diagram "b" { system { "a", a } }
args[2] = b
return b
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:[34]: diagram "[ab]" contains itself'
hdone

hcase sizes.cyclic_field_table
cat >"$T/spec.lua" <<'EOF'
local t = { 0 }
t[2] = t
return diagram "d" { system { "c", leaf "C" { discrete_state { "x", default = t } } } }
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:3: a table in this declaration contains itself'
hdone

hcase sizes.deep_field_tables
cat >"$T/spec.lua" <<'EOF'
local r = {}
local t = r
for i = 1, 100000 do t[1] = {}; t = t[1] end
return diagram "d" { system { "c", leaf "C" { discrete_state { "x", default = r } } } }
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:4: tables are nested more than 100 deep'
hdone

# specs that never end: --timeout (a signal: JIT-compiled loops too)
htimeout() {
  hcase "sizes.$1"
  printf '%s\n' "$2" >"$T/spec.lua"
  shift 2
  local a args=()
  for a in "$@"; do args+=("${a//@T@/$T}"); done
  hrun --timeout 15 -- "$DIAGC" "${args[@]}" --timeout 1
  expect_exit 2
  expect_error 'spec\.lua: timed out after 1 s .*--timeout'
  expect_absent "$T/out.c" "$T/out.h"
  expect_within 4
  hdone
}
htimeout loop_while 'while true do end' @T@/spec.lua -o @T@/out.c
htimeout loop_repeat 'repeat until false' @T@/spec.lua -o @T@/out.c
htimeout loop_recursive_tail 'local function f(n) return f(n + 1) end return f(0)' @T@/spec.lua -o @T@/out.c
htimeout loop_pcall 'while true do pcall(error, "x") end' @T@/spec.lua -o @T@/out.c
# a loop inside a C function (pattern backtracking) is stopped too
htimeout loop_pattern_backtracking 'string.find(string.rep("a", 40), string.rep("a*", 40) .. "b")' @T@/spec.lua -o @T@/out.c
htimeout loop_tostring_tail 'local t; t = setmetatable({}, { __tostring = function() return tostring(t) end }); tostring(t)' @T@/spec.lua -o @T@/out.c
htimeout loop_graph 'while true do end' graph @T@/spec.lua
htimeout loop_run 'local x = 0 while true do x = x + 1 end' run @T@/spec.lua --until 1

hcase sizes.timeout_option_value
printf 'return 1\n' >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c" --timeout nan
expect_exit 2
expect_error -- '--timeout expects a number of seconds >= 0'
hdone

# memory bombs: the Lua heap limit (DIAGC_LUA_MEMORY_MB lowers it for the test)
hmemory() {
  hcase "sizes.$1"
  printf '%s\n' "$2" >"$T/spec.lua"
  DIAGC_LUA_MEMORY_MB=64 hrun --timeout 20 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c" --timeout 10
  expect_exit 2
  expect_error 'Lua heap'
  expect_absent "$T/out.c" "$T/out.h"
  hdone
}
hmemory memory_string_doubling 'local s = "x" while true do s = s .. s end'
hmemory memory_table_growth 'local t = {} for i = 1, 1e12 do t[i] = i end'
hmemory memory_nested_tables 'local t = {} while true do t[#t + 1] = { 1, 2, 3, 4, 5, 6, 7, 8 } end'
hmemory memory_oom_swallowed 'while true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end) end'
hmemory memory_string_rep 'local s = string.rep("x", 2^30)'

# the default limit (2 GiB) refuses a 2 GiB string at once
hcase sizes.memory_default_limit
printf 'local s = string.rep("x", 2^31 - 1)\n' >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: the spec used more memory than the Lua heap limit of 2048 MiB'
expect_within 5
hdone

# very wide specs are slow, but end: within the time limit or with its error
hcase sizes.wide_100k_systems
cat >"$T/spec.lua" <<EOF
$H_LEAF
local items = {}
for i = 1, 100000 do items[i] = system { "c" .. i, C } end
return diagram "wide" (items)
EOF
hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c" --timeout 3
if [ "$rc" = 0 ]; then check "out.c not written" test -s "$T/out.c"; else
  expect_exit 2
  expect_error 'timed out after 3 s'
  expect_absent "$T/out.c" "$T/out.h"
fi
hdone

hcase sizes.huge_name
cat >"$T/spec.lua" <<'EOF'
local n = string.rep("N", 4 * 1024 * 1024)
return diagram "d" { system { "c", leaf(n .. "\n") { discrete_state { "x", default = { 0 } } } } }
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:2: leaf name .N+\.\.\.. is 4194305 characters long; a name is at most 255 characters'
check "error line longer than 520 characters" [ "${#err}" -le 520 ]
hdone
