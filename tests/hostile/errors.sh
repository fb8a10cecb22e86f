# tests/hostile/errors.sh: whatever a spec raises, diagc prints one line
# "diagc: FILE:LINE: message" (control characters escaped, length bounded)
# and exits with status 2: never an internal error or a traceback.

# herror NAME LUA ERE: the spec LUA (line 1 is where it fails) gives exit 2
# and one line matching ERE
herror() {
  hcase "errors.$1"
  printf '%s\n' "$2" >"$T/spec.lua"
  hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$3"
  expect_absent "$T/out.c" "$T/out.h"
  hdone
}

herror table_value 'error({})' 'spec\.lua:1: an error was raised with a table value'
herror nil_value 'error(nil)' 'spec\.lua:1: an error was raised with nil'
herror boolean_value 'error(false)' 'spec\.lua:1: an error was raised with false'
herror function_value 'error(tostring)' 'spec\.lua:1: an error was raised with a function value'
herror tostring_raises \
  'error(setmetatable({}, { __tostring = function() error("x") end }))' \
  'spec\.lua:1: an error was raised with a table value'
herror tostring_loops \
  'error(setmetatable({}, { __tostring = function() while true do end end }))' \
  'spec\.lua:1: an error was raised with a table value'
herror newline_escape 'error("a\nb\27[31m\r\tc")' 'spec\.lua:1: a\\nb\\x1b\[31m\\r\\tc$'
herror assert_table 'assert(false, {})' 'spec\.lua:1: an error was raised with a table value'
herror assert_escape 'assert(nil, "bad\1byte\7bell")' 'spec\.lua:1: bad\\x01byte\\x07bell'
herror index_metamethod \
  'local t = setmetatable({}, { __index = function() error("in\n__index") end }); local v = t.x' \
  'spec\.lua:1: in\\n__index'
herror newindex_metamethod \
  'local t = setmetatable({}, { __newindex = function() error({}) end }); t.x = 1' \
  'spec\.lua:1: an error was raised with a table value'
herror gsub_callback 'string.gsub("aaa", "a", function() error(nil) end)' 'spec\.lua:1: an error was raised with nil'
herror c_function_error 'string.rep()' "spec\.lua:1: bad argument #1 to 'rep'"
# LuaJIT does not bound the C stack of gsub callbacks (a segfault unguarded)
herror gsub_recursion 'local function f(s) return (("a"):gsub(".", f)) end f("a")' \
  'spec\.lua:1: string\.gsub callbacks nested more than 200 deep'
herror gsub_index_recursion \
  'local function f() return (("a"):gsub(".", setmetatable({}, { __index = function() return f() end }))) end f()' \
  'spec\.lua:1: string\.gsub callbacks nested more than 200 deep'
herror sort_recursion 'local function f() table.sort({ 3, 2, 1 }, function(a, b) f() return a < b end) end f()' \
  'spec\.lua:1: '
herror tostring_recursion \
  'local t; t = setmetatable({}, { __tostring = function() return string.format("%s", t) end }); tostring(t)' \
  'spec\.lua(:1)?: .*overflow'
herror stack_overflow 'local function f() return 1 + f() end f()' 'spec\.lua(:1)?: stack overflow \(a function that calls itself'
herror long_message 'error(string.rep("x", 100000))' 'spec\.lua:1: x+ \.\.\. x+$'
herror control_in_name \
  'return diagram "d\27[2J" { system { "c\n", leaf "C\27]0;pwned\7" { discrete_state { "x", default = { 0 } } } } }' \
  'spec\.lua:1: .*\\x1b'
herror syntax_error_escape 'local x = "\27[31m' 'spec\.lua:1: syntax error: .*\\x1b'
herror forged_diagc_error \
  'error({ diagc_error = true, loc = { file = "/etc/passwd\n", line = {} }, msg = setmetatable({}, { __tostring = function() error("x") end }) })' \
  'diagc: /etc/passwd\\n:0: a table value'
herror changed_caught_error \
  'local ok, e = pcall(leaf, 5); e.msg = "\27[31mX\nY"; error(e)' \
  'spec\.lua:1: \\x1b\[31mX\\nY'

# the line of the length limit: at most 500 characters after "diagc: "
hcase errors.long_message_bounded
printf 'error(string.rep("y", 1e6))\n' >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: y+'
check "error line longer than 520 characters" [ "${#err}" -le 520 ]
hdone

# errors in imported files point at the imported file
hcase errors.in_import
printf '\n\nerror({})\n' >"$T/lib.lua"
printf 'return import "lib.lua"\n' >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'lib\.lua:3: an error was raised with a table value'
hdone

# every command gives the same one-line error
hcase errors.graph_command
printf 'error("x\\ny")\n' >"$T/spec.lua"
hrun -- "$DIAGC" graph "$T/spec.lua"
expect_exit 2
expect_error 'spec\.lua:1: x\\ny'
hdone

hcase errors.run_command
printf 'error(setmetatable({}, { __index = function() error("deep") end }))\n' >"$T/spec.lua"
hrun -- "$DIAGC" run "$T/spec.lua" --until 1
expect_exit 2
expect_error 'spec\.lua:1: an error was raised with a table value'
hdone
