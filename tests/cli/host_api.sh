#!/usr/bin/env bash
# tests/cli/host_api.sh: the diagc_host module and bin/diagc's main(), tested
# with a stand-in driver (DIAGC_ROOT points at a temporary root whose
# runtime/ is this project's), so it does not depend on generator/diagc.
set -u
DIAGC=${DIAGC:-bin/diagc}
project=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/generator/diagc" "$tmp/inc"
ln -s "$project/runtime" "$tmp/runtime"
echo '#define EXTRA 100.0' > "$tmp/inc/extra.h"

cat > "$tmp/generator/diagc/driver.lua" <<'EOF'
local host = require("diagc_host")
local ffi = require("ffi")
local M = {}

local function check(name, cond, detail)
  if cond then print("ok host." .. name)
  else print("FAIL host." .. name .. ": " .. tostring(detail)) end
end

local function tests(args)
  local root = host.root()
  check("root", root == os.getenv("DIAGC_ROOT"), root)
  check("args", #args == 3 and args[1] == "api" and args[3] == "b c", table.concat(args, "|"))

  local h, warn = host.tcc_compile([[
#include <math.h>
#include <stdio.h>
#include <diagc/version.h>
#include "extra.h"
double f(double x) { return sin(x) + EXTRA + K; }
const char *v(void) { return diagc_version(); }
int fmt(char *buf, int n, double x) { return snprintf(buf, n, "%.2f", x); }
unsigned long long big(double x) { return (unsigned long long)x; }
#ifndef FLAG
#error FLAG not defined
#endif
#ifdef NOFLAG
#error NOFLAG defined
#endif
]], {include_paths = {root .. "/inc"}, defines = {K = "1000", FLAG = true, NOFLAG = false},
     options = "-Wall", name = "api"})
  check("tcc_compile", h ~= nil and warn == nil, warn)
  if not h then return end
  local pf = host.tcc_symbol(h, "f")
  check("tcc_symbol", type(pf) == "userdata", type(pf))
  check("tcc_symbol_missing", host.tcc_symbol(h, "no_such_function") == nil)
  local f = ffi.cast("double (*)(double)", pf)
  check("libm_call", math.abs(f(1) - (math.sin(1) + 1100)) < 1e-12, f(1))
  local v = ffi.cast("const char *(*)(void)", host.tcc_symbol(h, "v"))
  check("runtime_call", ffi.string(v()) == "0.1.0", ffi.string(v()))
  local fmt = ffi.cast("int (*)(char *, int, double)", host.tcc_symbol(h, "fmt"))
  local buf = ffi.new("char[16]")
  fmt(buf, 16, math.pi)
  check("libc_call", ffi.string(buf) == "3.14", ffi.string(buf))
  local big = ffi.cast("unsigned long long (*)(double)", host.tcc_symbol(h, "big"))
  check("libtcc1_call", big(1e19) == 10000000000000000000ULL, tostring(big(1e19)))
  ffi.cdef("const char *diagc_version(void);")
  check("ffi_C_runtime", ffi.string(ffi.C.diagc_version()) == "0.1.0")

  local nh, err = host.tcc_compile('#line 7 "spec.lua"\nint g(void) { return nope; }')
  check("compile_error", nh == nil and err:find("^spec%.lua:7: error: ") ~= nil, err)
  nh, err = host.tcc_compile("int g(void) { return 0 }\nint h(void) { return 0 }")
  check("compile_error_lines", nh == nil and err:find("<string>:1:") ~= nil, err)
  nh, err = host.tcc_compile("extern int undefined_fn(void); int g(void) { return undefined_fn(); }")
  check("undefined_symbol", nh == nil and err:find("undefined_fn") ~= nil, err)
  nh, err = host.tcc_compile("int g(void) { char *p = 1; return p != 0; }", {options = "-Wall -Werror"})
  check("werror", nh == nil and err:find("error") ~= nil, err)
  nh, err = host.tcc_compile("int g(void) { char *p = 1; return p != 0; }", {options = "-Wall"})
  check("warnings", nh ~= nil and err:find("warning") ~= nil, err)
  nh, err = host.tcc_compile("int g(void) { return 0; }", {options = "-no-such-option"})
  check("bad_option", nh == nil and err:find("no%-such%-option") ~= nil, err)
  check("bad_opts_type", not pcall(host.tcc_compile, "int x;", {include_paths = {1}}))
  local sum = 0
  for i = 1, 50 do
    local hh = host.tcc_compile("int g(void) { return " .. i .. "; }")
    sum = sum + ffi.cast("int (*)(void)", host.tcc_symbol(hh, "g"))()
  end
  collectgarbage(); collectgarbage()
  check("many_handles", sum == 1275, sum)

  local toks = host.lex_c('#define X 1\nint x = a->b; /* c */ "s\\n" \'c\' 1.5e3f')
  local got = {}
  for _, t in ipairs(toks) do got[#got + 1] = t.kind .. ":" .. t.text .. "@" .. t.line .. ":" .. t.col end
  got = table.concat(got, " ")
  check("lex_c", got == "pp:#define X 1@1:1 ident:int@2:1 ident:x@2:5 punct:=@2:7 ident:a@2:9 "
    .. "punct:->@2:10 ident:b@2:12 punct:;@2:13 string:\"s\\n\"@2:23 char:'c'@2:29 number:1.5e3f@2:33", got)
  local t, e = host.lex_c("x\n  /* open")
  check("lex_c_error", t == nil and e == "2:3: unterminated comment", e)
  t, e = host.lex_c("'a")
  check("lex_c_char_error", t == nil and e == "1:1: unterminated character constant", e)

  check("isatty", host.isatty(0) == false and type(host.isatty(1)) == "boolean")
  local t0 = host.now()
  local t1 = host.now()
  check("now", type(t0) == "number" and t1 >= t0 and t0 > 0, t0)
end

function M.main(args)
  if args[1] == "api" then tests(args) return 0 end
  if args[1] == "exit" then return tonumber(args[2]) end
  if args[1] == "nil" then return nil end
  if args[1] == "error" then error("kaboom") end
  if args[1] == "table_error" then error({}) end
end
return M
EOF

export DIAGC_ROOT="$tmp"
"$DIAGC" api "" "b c" </dev/null

"$DIAGC" exit 7; rc=$?
[ $rc -eq 7 ] && echo "ok host.exit_code" || echo "FAIL host.exit_code: $rc"
"$DIAGC" nil; rc=$?
[ $rc -eq 0 ] && echo "ok host.exit_nil" || echo "FAIL host.exit_nil: $rc"
out=$("$DIAGC" error 2>&1); rc=$?
if [ $rc -eq 70 ] && [[ "$out" == "diagc: internal error: "*"kaboom"*"stack traceback:"* ]]; then
  echo "ok host.internal_error"
else
  echo "FAIL host.internal_error: rc=$rc out=$out"
fi
out=$("$DIAGC" table_error 2>&1); rc=$?
[ $rc -eq 70 ] && [[ "$out" == *"table value"* ]] && echo "ok host.internal_error_table" ||
  echo "FAIL host.internal_error_table: rc=$rc out=$out"
rm "$tmp/generator/diagc/driver.lua"
out=$("$DIAGC" 2>&1); rc=$?
# a root without the modules: one line naming it, exit 2 (docs/install.md)
[ $rc -eq 2 ] && [[ "$out" == "diagc: DIAGC_ROOT=$tmp does not contain generator/diagc/driver.lua;"* ]] &&
  echo "ok host.no_driver" ||
  echo "FAIL host.no_driver: rc=$rc out=$out"
exit 0
