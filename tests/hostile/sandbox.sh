# tests/hostile/sandbox.sh: a spec is Lua in a sandbox (docs/security.md).
# Each case tries one way out; code that escaped would create $T/MARKER.

# diagc as an absolute path (for cases that change directory)
case $DIAGC in /*) H_DIAGC=$DIAGC ;; *) H_DIAGC=$ROOT/$DIAGC ;; esac

# a valid diagram to end specs with
H_OK='return diagram "d" { system { "c", leaf "C" { discrete_state { "x", default = { 0 } } } } }'

# hsandbox NAME LUA [ERE]: the spec LUA must fail with exit 2 and one line
# (matching ERE), write nothing and leave no marker
hsandbox() {
  hcase "sandbox.$1"
  printf '%s\n%s\n' "$2" "$H_OK" | sed "s#@T@#$T#g" >"$T/spec.lua"
  hrun --timeout 20 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "${3:-spec\.lua:1: }"
  expect_absent "$T/out.c" "$T/out.h"
  expect_no_marker
  hdone
}

hsandbox io_open 'io.open("@T@/MARKER", "w"):close()' "unknown name 'io'"
hsandbox os_execute 'os.execute("touch @T@/MARKER")' "unknown name 'os'"
hsandbox require_ffi 'require("ffi").C.system("touch @T@/MARKER")' "unknown name 'require'"
hsandbox loadstring 'loadstring("io.open([[@T@/MARKER]], [[w]])")()' "unknown name 'loadstring'"
hsandbox load 'load("io.open([[@T@/MARKER]], [[w]])")()' "unknown name 'load'"
hsandbox dofile 'dofile("@T@/x.lua")' "unknown name 'dofile'"
hsandbox getfenv 'getfenv(0).io.open("@T@/MARKER", "w")' "unknown name 'getfenv'"
hsandbox setfenv 'setfenv(1, {})' "unknown name 'setfenv'"
hsandbox debug_registry 'debug.getregistry()._LOADED.io.open("@T@/MARKER", "w")' "unknown name 'debug'"
hsandbox jit_library 'jit.off()' "unknown name 'jit'"
hsandbox package_loaded 'package.loaded.io.open("@T@/MARKER", "w")' "unknown name 'package'"
hsandbox collectgarbage 'collectgarbage("stop")' "unknown name 'collectgarbage'"
hsandbox global_table '_G.io.open("@T@/MARKER", "w")' "unknown name '_G'"
hsandbox coroutine_wrap 'coroutine.wrap(function() end)()' "unknown name 'coroutine'"
hsandbox newproxy 'newproxy(true)' "unknown name 'newproxy'"
hsandbox string_dump_removed 'string.dump(function() end)' 'attempt to call field .dump'
# the string metatable (whose __index is the generator's string table)
hsandbox string_metatable 'getmetatable("").__index.format = function() return "EVIL" end' \
  'attempt to index a nil value'
hsandbox string_metatable_rawset 'rawset(getmetatable("x"), "__index", {})' 'bad argument #1 to .rawset'
# diagc's own error objects, caught with pcall: their metatable is locked
hsandbox error_metatable \
  'local ok, e = pcall(leaf, 5); getmetatable(e).__index.format = function() return "EVIL" end' \
  'attempt to index a boolean value'
hsandbox redefine_dsl_name 'leaf = function() end' "'leaf' is a name of the spec language and cannot be redefined"
hsandbox redefine_import 'import = function() return {} end' "'import' is a name of the spec language"
hsandbox redefine_string 'string = nil' "'string' is a name of the spec language"
hsandbox forged_system 'do return { _kind = "diagram", name = "d", loc = { file = "x", line = 1 }, items = {} } end' \
  'not made by leaf or diagram'
hsandbox forged_system_in_diagram \
  'do return diagram "d" { system { "c", { _kind = "leaf", name = "C", loc = {}, items = {} } } } end' \
  "a table with a '_kind' or '_item' field is not a system"

# pcall cannot reach what is not in the environment either: the spec ends normally
hcase sandbox.pcall_probe
cat >"$T/spec.lua" <<EOF
for _, name in ipairs({ "io", "os", "debug", "require", "ffi", "jit", "load", "getfenv" }) do
  local ok, v = pcall(function() return ({})[name] or _G end)
  if ok and v then v.io.open("$T/MARKER", "w") end
end
$H_OK
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 0
expect_no_marker
hdone

# a spec that replaces functions of its string/table/math libraries changes
# nothing the generator writes: the output equals that of the plain spec
hcase sandbox.library_tampering
mkdir "$T/a" "$T/b"
printf '\n%s\n' "$H_OK" >"$T/a/spec.lua"
{ printf '%s' 'string.format = function() return "EVIL" end; string.gsub = function() return "EVIL", 0 end; '
  printf '%s' 'string.rep = function() return "EVIL" end; table.concat = function() return "EVIL" end; '
  printf '%s\n' 'table.sort = function() end; table.insert = function() end; math.floor = function() return 42 end; math.huge = 1'
  printf '%s\n' "$H_OK"; } >"$T/b/spec.lua"
hrun -- sh -c "cd '$T/a' && '$H_DIAGC' spec.lua -o out.c"
hrun -- sh -c "cd '$T/b' && '$H_DIAGC' spec.lua -o out.c"
expect_exit 0
check "generated C differs from the plain spec's" cmp -s "$T/a/out.c" "$T/b/out.c"
check "generated header differs from the plain spec's" cmp -s "$T/a/out.h" "$T/b/out.h"
hdone

# metatables on field tables are not consulted after loading: a field that
# would read differently at each access cannot reach the generated C
hcase sandbox.metamethod_fields
cat >"$T/spec.lua" <<'EOF'
local n = 0
local fields = setmetatable({ "x" }, { __index = function(_, k)
  n = n + 1
  if k == "default" then return n == 1 and { 0 } or { "0); EVIL(" } end
end })
return diagram "d" { system { "c", leaf "C" { discrete_state(fields) } } }
EOF
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
check "generated C holds EVIL" sh -c "! grep -q EVIL '$T/out.c' 2>/dev/null"
[ "$rc" = 0 ] || expect_error 'spec\.lua:6: '
hdone

# bytecode: source text only, for the spec and for every import
hcase sandbox.bytecode_import
printf '%s\n' "$H_OK" >"$T/lib.lua"
luajit -b "$T/lib.lua" "$T/lib.luac" 2>/dev/null || printf '\033LJ\002\012' >"$T/lib.luac"
printf '\n\nreturn import "lib.luac"\n' >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:3: .*bytecode.*source text'
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase sandbox.bytecode_spec
printf '%s\n' "$H_OK" >"$T/lib.lua"
luajit -b "$T/lib.lua" "$T/spec.lua" 2>/dev/null || printf '\033LJ\002\012' >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: .*bytecode'
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase sandbox.corrupt_bytecode
printf '\033LJ\002\012\377\377\377\377garbage' >"$T/evil.luac"
printf 'return import "evil.luac"\n' >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: .*bytecode'
hdone

# imports of what is not a regular file: refused at once, never read
hcase sandbox.import_fifo
mkfifo "$T/fifo.lua"
printf 'return import "fifo.lua"\n' >"$T/spec.lua"
hrun --timeout 10 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: cannot import .*not a regular file'
expect_within 3
hdone

hcase sandbox.import_directory
mkdir "$T/dir.lua"
printf 'return import "dir.lua"\n' >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: cannot import .*directory'
hdone

hcase sandbox.import_dev_zero
printf 'return import "/dev/zero"\n' >"$T/spec.lua"
hrun --timeout 10 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: cannot import .*not a regular file'
expect_within 3
hdone

hcase sandbox.import_stdin
printf 'return import "/dev/stdin"\n' >"$T/spec.lua"
mkfifo "$T/never"
# stdin is a FIFO nobody writes to: reading it would block forever
( exec 3<>"$T/never"; hrun --timeout 10 --stdin "$T/never" -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2; expect_error 'cannot import .*not a regular file'; expect_within 3; hdone )

hcase sandbox.import_too_large
truncate -s 17M "$T/big.lua"
printf 'return import "big.lua"\n' >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: cannot import .*larger than the limit of 16 MiB'
hdone

hcase sandbox.spec_is_fifo
mkfifo "$T/spec.lua"
hrun --timeout 10 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "cannot read spec file .*not a regular file"
expect_within 3
hdone
