-- tests/cli/doctest.lua: runs the fenced code blocks of Markdown documents.
--
--   luajit tests/cli/doctest.lua TREE DOC.md [DOC.md ...]
--
-- Every fenced block says through its info string how it runs (the contract
-- is docs/contributing.md).  The blocks of one
-- document run in order in a fresh scratch directory (HOME, TMPDIR and the
-- first working directory are in it; `examples`, `bin`, `lib`, `runtime`
-- and `diagc` there are symlinks to TREE), removed afterwards.  The working
-- directory and the shell variables a block leaves carry over to the next.
-- Prints "ok docs.NAME.N" or "FAIL docs.NAME.N: DOC:LINE: reason" per block
-- that runs (N counts every fenced block of the document from 1), then the
-- output that failed, indented, and a summary line per document.
-- Exit status: 0 if every block passed, 1 otherwise, 2 on bad usage.

local TREE = arg[1]
if not TREE or not arg[2] then
  io.stderr:write("usage: luajit tests/cli/doctest.lua TREE DOC.md [DOC.md ...]\n")
  os.exit(2)
end
if TREE:sub(1, 1) ~= "/" then -- the scratch symlinks need an absolute path
  TREE = io.popen("cd '" .. TREE:gsub("'", "'\\''") .. "' && pwd"):read("*l") or TREE
end
local DEFAULT_TIMEOUT = 60 -- seconds per block
local CC = os.getenv("CC") or "cc"
local CFLAGS = "-std=c99 -Wall -Wextra -Werror -pedantic"
local RUN_DIR, HOME -- the runner's files and the scratch HOME of the document being run

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

local function write(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

local function sh(cmd) -- runs cmd, returns its exit status (from a file: os.execute differs by Lua)
  os.execute(cmd .. "; echo $? >" .. q(RUN_DIR .. "/status"))
  return tonumber(read(RUN_DIR .. "/status")) or -1
end

local function lines_of(s)
  local t = {}
  for l in (s .. "\n"):gmatch("(.-)\r?\n") do t[#t + 1] = (l:gsub("%s+$", "")) end
  while #t > 0 and t[#t] == "" do t[#t] = nil end
  return t
end

-- ---------------------------------------------------------------------------
-- Parsing: fenced blocks and their info strings.

-- Returns the blocks of a document: {line =, info =, text =, lines = {{s, line}}},
-- and an error (line, message) for a fence that is never closed.
local function parse(doc)
  local blocks, cur = {}, nil
  local n = 0
  for raw in (doc .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    if cur then
      local fence = raw:match("^ *([`~]+)%s*$")
      if fence and fence:sub(1, 1) == cur.char and #fence >= cur.len and not fence:find("[^" .. cur.char .. "]") then
        blocks[#blocks + 1] = cur
        cur = nil
      else
        local l = raw
        for _ = 1, cur.indent do l = l:gsub("^ ", "") end
        cur.lines[#cur.lines + 1] = { l, n }
      end
    else
      local ind, fence, info = raw:match("^( *)(```+)(.*)$")
      if not fence then ind, fence, info = raw:match("^( *)(~~~+)(.*)$") end
      if fence and not (fence:sub(1, 1) == "`" and info:find("`")) then
        cur = { line = n, indent = #ind, char = fence:sub(1, 1), len = #fence,
                info = info:gsub("^%s+", ""):gsub("%s+$", ""), lines = {} }
      end
    end
  end
  if cur then return blocks, cur.line end
  for _, b in ipairs(blocks) do
    local t = {}
    for i, l in ipairs(b.lines) do t[i] = l[1] end
    b.text = table.concat(t, "\n") .. (#t > 0 and "\n" or "")
  end
  return blocks
end

local KINDS = { fragment = true, run = true, spec = true, test = true, compile = true }
local OPTIONS = { file = true, with = true, cwd = true, timeout = true, same = true, needs = true }

-- info string -> kind, options | nil, error.  Kinds: text, fragment,
-- console, run (sh), file, spec, test, compile, run_c, run_py.
local function classify(info)
  if info == "" then return nil, "a fenced block without an info string; say how it runs (```text if it is not code)" end
  local words, opts = {}, {}
  for w in info:gmatch("%S+") do
    local k, v = w:match("^([%a_]+)=(.*)$")
    if k then
      if not OPTIONS[k] or v == "" then return nil, "unknown option '" .. w .. "' in info string '" .. info .. "'" end
      opts[k] = v
    else
      words[#words + 1] = w
    end
  end
  local lang, what = words[1], words[2]
  if not lang or #words > 2 or (what and not KINDS[what]) or not lang:match("^[%w_+-]+$") then
    return nil, "unknown info string '" .. info .. "'"
  end
  local kind
  if lang == "text" and not what then kind = "text"
  elseif what == "fragment" then kind = "fragment"
  elseif lang == "console" and not what then kind = "console"
  elseif lang == "sh" and what == "run" then kind = "run"
  elseif lang == "lua" and (what == "spec" or what == "test") then kind = what
  elseif lang == "c" and what == "compile" then kind = "compile"
  elseif lang == "c" and what == "run" then kind = "run_c"
  elseif lang == "python" and what == "run" then kind = "run_py"
  elseif not what and opts.file then kind = "file"
  else return nil, "unknown info string '" .. info .. "'" end
  local allowed = ({
    text = {}, fragment = {}, console = { cwd = 1, timeout = 1, needs = 1 }, run = { cwd = 1, timeout = 1, needs = 1 },
    file = { file = 1, same = 1 }, spec = { file = 1, same = 1, timeout = 1 },
    test = { file = 1, same = 1, timeout = 1 }, compile = { file = 1, same = 1, with = 1, timeout = 1 },
    run_c = { file = 1, same = 1, with = 1, timeout = 1 },
    run_py = { timeout = 1 },
  })[kind]
  for k in pairs(opts) do
    if not allowed[k] then return nil, "option '" .. k .. "=' does not apply to '" .. info .. "'" end
  end
  if opts.cwd and opts.cwd ~= "root" then return nil, "cwd= takes only 'root'" end
  if opts.needs and opts.needs ~= "viewer" then return nil, "needs= takes only 'viewer'" end
  if opts.timeout and not tonumber(opts.timeout) then return nil, "timeout= takes seconds" end
  if opts.file and (opts.file:match("^/") or opts.file:match("%.%.")) then
    return nil, "file= names a file under the working directory (no '/' first, no '..')"
  end
  if opts.same and (opts.same:match("^/") or opts.same:match("%.%.")) then
    return nil, "same= names a file of the checkout (no '/' first, no '..')"
  end
  return kind, opts
end

-- ---------------------------------------------------------------------------
-- Console transcripts: "$ command" lines, then the expected output.

-- -> commands {{cmd =, line =, expect = {{s, line}}, exit =}} | nil, line, error
local function parse_console(b)
  local cmds, cur = {}, nil
  local i = 1
  while i <= #b.lines do
    local s, ln = b.lines[i][1], b.lines[i][2]
    local c = s:match("^%$ (.*)$") or (s == "$" and "")
    if c then
      local parts = { c }
      while parts[#parts]:match("\\$") and b.lines[i + 1] do
        i = i + 1
        parts[#parts + 1] = b.lines[i][1]
      end
      cur = { cmd = table.concat(parts, "\n"), line = ln, expect = {}, exit = 0 }
      cmds[#cmds + 1] = cur
    elseif not cur then
      if s ~= "" then return nil, ln, "output before the first '$ ' command line" end
    else
      cur.expect[#cur.expect + 1] = { (s:gsub("%s+$", "")), ln }
    end
    i = i + 1
  end
  if #cmds == 0 then return nil, b.line, "a console block without a '$ ' command line" end
  for _, c in ipairs(cmds) do
    while #c.expect > 0 and c.expect[#c.expect][1] == "" do c.expect[#c.expect] = nil end
    local last = c.expect[#c.expect]
    local n = last and last[1]:match("^%[exit (%d+)%]$")
    if n then
      c.exit = tonumber(n)
      c.expect[#c.expect] = nil
    end
  end
  return cmds
end

-- One line against a pattern in which "[..]" matches any text.
local function line_matches(pat, s)
  if not pat:find("[..]", 1, true) then return pat == s end
  local parts, pos = {}, 1
  while true do
    local a, b = pat:find("[..]", pos, true)
    if not a then parts[#parts + 1] = pat:sub(pos); break end
    parts[#parts + 1] = pat:sub(pos, a - 1)
    pos = b + 1
  end
  local first, last = parts[1], parts[#parts]
  if s:sub(1, #first) ~= first or #s < #first + #last or (last ~= "" and s:sub(-#last) ~= last) then
    return false
  end
  local at, stop = #first + 1, #s - #last
  for k = 2, #parts - 1 do
    local a, b = s:find(parts[k], at, true)
    if not a or b > stop then return false end
    at = b + 1
  end
  return true
end

-- Expected lines {{s, line}} (a line "..." matches any number of lines)
-- against actual lines.  -> true | false, expected {s, line} or nil, actual line or nil
local function output_matches(exp, act)
  local memo, far_i, far_j = {}, 0, 0
  local function note(i, j) -- the furthest point the match reached
    if i > far_i or (i == far_i and j > far_j) then far_i, far_j = i, j end
  end
  local function m(i, j)
    local key = i * 100003 + j
    if memo[key] ~= nil then return memo[key] end
    local r = false
    if i > #exp then
      r = j > #act
      if not r then note(i, j) end
    elseif exp[i][1] == "..." then
      for k = j, #act + 1 do
        if m(i + 1, k) then r = true; break end
      end
    elseif j <= #act and line_matches(exp[i][1], act[j]) then
      r = m(i + 1, j + 1)
    else
      note(i, j)
    end
    memo[key] = r
    return r
  end
  if m(1, 1) then return true end
  return false, exp[far_i], act[far_j]
end

-- ---------------------------------------------------------------------------
-- Running.

local function shorten(s)
  s = s or ""
  if #s > 160 then s = s:sub(1, 157) .. "..." end
  return s
end

-- The preamble and epilogue every block script shares: restore the working
-- directory and variables the previous block left, save them afterwards.
local function prologue(opts)
  return table.concat({
    "__nl=$'\\n'; __doctest_base=$__nl$(compgen -v)$__nl",
    ". " .. q(RUN_DIR .. "/vars") .. " 2>/dev/null",
    "cd \"$(cat " .. q(RUN_DIR .. "/cwd") .. ")\" || exit 99",
    opts.cwd == "root" and "cd " .. q(TREE) .. " || exit 99" or "",
    "exec </dev/null", "" }, "\n")
end

local function epilogue(opts)
  return table.concat({
    "",
    "set +e",
    opts.cwd == "root" and "" or ("pwd >" .. q(RUN_DIR .. "/cwd")),
    "{ export -p",
    "  for __v in $(compgen -v); do",
    "    case \"$__v\" in __doctest*|__nl|__v|BASH*|FUNCNAME|PIPESTATUS|GROUPS|DIRSTACK|_) continue;; esac",
    "    case \"$__doctest_base\" in *\"$__nl$__v$__nl\"*) ;; *) declare -p \"$__v\";; esac",
    "  done; } >" .. q(RUN_DIR .. "/vars.new") .. " 2>/dev/null && mv "
      .. q(RUN_DIR .. "/vars.new") .. " " .. q(RUN_DIR .. "/vars"),
    "" }, "\n")
end

-- Runs a bash script under the block's time limit. -> status, output
local function run_script(body, opts)
  local limit = tonumber(opts.timeout) or DEFAULT_TIMEOUT
  write(RUN_DIR .. "/block.sh", body)
  -- without what a calling make or diagc test exported (make[1] lines, a filter)
  local st = sh(string.format("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DIAGC_ROOT -u DIAGC_TEST_FILTER "
    .. "timeout -k 5 %s bash %s >%s 2>&1", limit, q(RUN_DIR .. "/block.sh"), q(RUN_DIR .. "/block.out")))
  local out = read(RUN_DIR .. "/block.out") or ""
  if st == 124 or st == 137 then return st, out, string.format("timed out after %s s", limit) end
  return st, out
end

local function cwd() return (read(RUN_DIR .. "/cwd") or HOME .. "\n"):gsub("\n$", "") end

-- Each runner returns nil on success, or line, reason, output.
local runners = {}

function runners.run(b, opts)
  local st, out, why = run_script(prologue(opts) .. "set -e\n" .. b.text .. epilogue(opts), opts)
  if why then return b.line, why, out end
  if st ~= 0 then return b.line, "the script exited with status " .. st, out end
end

-- A `python run` block: the Debian python3 (PYTHON overrides) with the
-- checkout's python/ first on PYTHONPATH, in the block's working directory;
-- it must exit with status 0.  No bytecode is written into the checkout.
local PYTHON = os.getenv("PYTHON") or (io.open("/usr/bin/python3") and "/usr/bin/python3" or "python3")
function runners.run_py(b, opts)
  write(RUN_DIR .. "/block.py", b.text)
  local st, out, why = run_script(prologue(opts) .. "set -e\n"
    .. "PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=" .. q(TREE .. "/python") .. "${PYTHONPATH:+:$PYTHONPATH} "
    .. q(PYTHON) .. " " .. q(RUN_DIR .. "/block.py") .. epilogue(opts), opts)
  if why then return b.line, why, out end
  if st ~= 0 then return b.line, "the Python block exited with status " .. st, out end
end
-- python3 with NumPy here? (import diagc needs it; a block without is a skip)
local have_numpy
local function numpy_missing()
  if have_numpy == nil then have_numpy = sh(q(PYTHON) .. " -c 'import numpy' >/dev/null 2>&1") == 0 end
  return not have_numpy
end

function runners.console(b, opts)
  local cmds, ln, err = parse_console(b)
  if not cmds then return ln, err end
  local body = { prologue(opts) }
  for k, c in ipairs(cmds) do
    -- ($? stays the command's, for a following "$ echo $?")
    body[#body + 1] = string.format("{ %s\n} >%s 2>&1; __doctest_rc=$?; echo $__doctest_rc >%s; (exit $__doctest_rc)",
      c.cmd, q(RUN_DIR .. "/out." .. k), q(RUN_DIR .. "/rc." .. k))
  end
  os.execute("rm -f " .. q(RUN_DIR) .. "/out.* " .. q(RUN_DIR) .. "/rc.*")
  local _, out, why = run_script(table.concat(body, "\n") .. epilogue(opts), opts)
  for k, c in ipairs(cmds) do
    local got = read(RUN_DIR .. "/out." .. k)
    local rc = tonumber(read(RUN_DIR .. "/rc." .. k) or "")
    local label = "'$ " .. shorten(c.cmd:gsub("\n.*", " ...")) .. "'"
    if not rc then
      return c.line, label .. ": " .. (why or "did not finish"), (got or "") .. out
    end
    local ok, e, a = output_matches(c.expect, lines_of(got))
    if not ok then
      if e then
        return e[2], string.format("output of %s: expected '%s', got %s", label, shorten(e[1]),
          a and "'" .. shorten(a) .. "'" or "the end of the output"), got
      end
      return c.line, string.format("output of %s: unexpected line '%s' after the expected output",
        label, shorten(a)), got
    end
    if rc ~= c.exit then
      return c.line, string.format("%s exited with status %d, expected %d", label, rc, c.exit), got
    end
  end
  if why then return b.line, why, out end
end

-- The file a block names, or a hidden one in the working directory.
local function block_file(b, opts, n, ext)
  local name = opts.file or string.format(".doctest_%d%s", n, ext)
  local path = cwd() .. "/" .. name
  os.execute("mkdir -p " .. q(path:match("^(.*)/")))
  write(path, b.text)
  return name, not opts.file and path
end

function runners.file(b, opts, n)
  block_file(b, opts, n, "")
end

local function in_cwd(opts, cmd)
  return run_script(prologue(opts) .. cmd .. "\n", opts)
end

function runners.spec(b, opts, n)
  local name, tmp = block_file(b, opts, n, ".lua")
  os.execute("mkdir -p " .. q(RUN_DIR .. "/spec"))
  local st, out, why = in_cwd(opts, "diagc " .. q(name) .. " -o " .. q(RUN_DIR .. "/spec/model.c"))
  if tmp then os.remove(tmp) end
  if why then return b.line, why, out end
  if st ~= 0 then return b.line, "diagc could not generate C from the spec: " .. shorten(lines_of(out)[1]), out end
end

function runners.test(b, opts, n)
  local name, tmp = block_file(b, opts, n, "_test.lua")
  local st, out, why = in_cwd(opts, "diagc test " .. q(name))
  if tmp then os.remove(tmp) end
  if why then return b.line, why, out end
  if st ~= 0 then
    local first
    for _, l in ipairs(lines_of(out)) do
      if l:match("^FAIL") or l:match("^diagc:") then first = first or l end
    end
    return b.line, "diagc test failed: " .. shorten(first or lines_of(out)[1]), out
  end
end

local function c_block(b, opts, n, link)
  local name, tmp = block_file(b, opts, n, ".c")
  local srcs = { q(name) }
  for w in (opts.with or ""):gmatch("[^,]+") do srcs[#srcs + 1] = q(w) end
  local inc = "-I" .. q(TREE .. "/runtime/include") .. " -I."
  local cmd
  local exe = RUN_DIR .. "/prog"
  if link then
    cmd = string.format("%s %s %s %s %s -lm -lpthread -o %s && %s", CC, CFLAGS, inc,
      table.concat(srcs, " "), q(TREE .. "/lib/libdiagc.a"), q(exe), q(exe))
  else
    cmd = string.format("for f in %s; do %s %s %s -c \"$f\" -o %s || exit 1; done", table.concat(srcs, " "),
      CC, CFLAGS, inc, q(RUN_DIR .. "/obj.o"))
  end
  local st, out, why = in_cwd(opts, cmd)
  if tmp then os.remove(tmp) end
  os.remove(exe)
  if why then return b.line, why, out end
  if st ~= 0 then
    local first
    for _, l in ipairs(lines_of(out)) do first = first or (l:find("error") and l) end
    return b.line, (link and "compiling and running" or "compiling") .. " failed (status " .. st .. "): "
      .. shorten(first or lines_of(out)[1]), out
  end
end

function runners.compile(b, opts, n) return c_block(b, opts, n, false) end
function runners.run_c(b, opts, n) return c_block(b, opts, n, true) end

-- ---------------------------------------------------------------------------

local function doc_name(path)
  return (path:match("([^/]+)$"):gsub("%.md$", ""))
end

local function indent(s)
  local t = {}
  for _, l in ipairs(lines_of(s or "")) do t[#t + 1] = "    | " .. l end
  if #t > 60 then
    local keep = {}
    for i = 1, 30 do keep[i] = t[i] end
    keep[31] = string.format("    | ... (%d lines)", #t - 60)
    for i = #t - 29, #t do keep[#keep + 1] = t[i] end
    t = keep
  end
  return table.concat(t, "\n")
end

local failed = 0

local function run_doc(path)
  local name = "docs." .. doc_name(path)
  local src = read(TREE .. "/" .. path) or read(path)
  if not src then
    print(string.format("FAIL %s: %s: cannot read the document", name, path))
    failed = failed + 1
    return
  end
  local blocks, open = parse(src)
  if open then
    print(string.format("FAIL %s: %s:%d: a fenced block that is never closed", name, path, open))
    failed = failed + 1
    return
  end
  local scratch = io.popen("mktemp -d \"${TMPDIR:-/tmp}/diagc-doctest.XXXXXX\""):read("*l")
  RUN_DIR, HOME = scratch .. "/run", scratch .. "/home"
  os.execute(string.format("mkdir -p %s %s %s", q(RUN_DIR), q(HOME), q(scratch .. "/tmp")))
  for _, l in ipairs({ "examples", "bin", "lib", "runtime" }) do
    os.execute(string.format("ln -s %s %s", q(TREE .. "/" .. l), q(HOME .. "/" .. l)))
  end
  os.execute(string.format("ln -s %s %s", q(TREE), q(HOME .. "/diagc")))
  write(RUN_DIR .. "/cwd", HOME .. "\n")
  write(RUN_DIR .. "/vars", table.concat({
    "export HOME=" .. q(HOME), "export TMPDIR=" .. q(scratch .. "/tmp"),
    "export PATH=" .. q(TREE .. "/bin") .. ":\"$PATH\"", "export LC_ALL=C", "" }, "\n"))
  local count = { run = 0, fragment = 0, text = 0, file = 0 }
  for n, b in ipairs(blocks) do
    local kind, opts = classify(b.info)
    local id = name .. "." .. n
    if not kind then
      print(string.format("FAIL %s: %s:%d: %s", id, path, b.line, opts))
      failed = failed + 1
    elseif kind == "text" or kind == "fragment" then
      count[kind] = count[kind] + 1
    elseif kind == "file" and not opts.same then
      count.file = count.file + 1
      runners.file(b, opts, n)
    elseif opts.same and read(TREE .. "/" .. opts.same) ~= b.text then
      count.run = count.run + 1
      local want = lines_of(read(TREE .. "/" .. opts.same) or "")
      local k = 1
      while b.lines[k] and b.lines[k][1] == want[k] do k = k + 1 end
      print(string.format("FAIL %s: %s:%d: the block differs from %s%s", id, path,
        b.lines[k] and b.lines[k][2] or b.line, opts.same, want[1] and string.format(
        " (its line %d: '%s')", k, shorten(want[k] or "(the end of the file)")) or ": no such file"))
      failed = failed + 1
    elseif kind == "run_py" and numpy_missing() then
      print(string.format("skip %s: %s:%d: python3 with NumPy is not installed (python3-numpy: "
        .. "scripts/install-deps.sh)", id, path, b.line))
    elseif opts.needs == "viewer" and not read(TREE .. "/build/viewer/viewer.js") then
      -- the viewer's bundle is built only where npm reached its registry
      -- (scripts/install-deps.sh): said, never a silent pass
      print(string.format("skip %s: %s:%d: the viewer's bundle is not built (its npm packages are missing: "
        .. "scripts/install-deps.sh)", id, path, b.line))
    else
      count.run = count.run + 1
      local line, why, out = runners[kind](b, opts, n)
      if line then
        print(string.format("FAIL %s: %s:%d: %s", id, path, line, why))
        if out and out ~= "" then print(indent(out)) end
        failed = failed + 1
      else
        print("ok " .. id)
      end
    end
  end
  os.execute("chmod -R u+w " .. q(scratch) .. " 2>/dev/null; rm -rf " .. q(scratch))
  print(string.format("%s: %d blocks: %d run, %d file, %d fragment, %d text", path, #blocks,
    count.run, count.file, count.fragment, count.text))
end

for i = 2, #arg do run_doc(arg[i]) end
os.exit(failed == 0 and 0 or 1)
