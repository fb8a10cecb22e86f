-- testing/runner.lua: diagc test [FILE|DIR ...] [--filter PATTERN] [--timeout S]
-- Runs Lua test files.  Each file, and each test within it, runs in a
-- forked child, so a crash in generated code fails that test (or that
-- file's top level) only; a test or top level that runs longer than
-- --timeout seconds (default 120; 0: none) is killed and fails.  The
-- parent enforces the limit: each child leads its own process group, which
-- is killed as a whole, and the parent stops reading its pipe (a child that
-- ignores SIGALRM, or a grandchild holding the pipe, cannot stall the run).
-- Prints "ok NAME (T ms)" or "FAIL NAME: where: why" per test and ends
-- with "N passed, N failed".
local ffi = require("ffi")
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local assertions = require("diagc.testing.assert")
local usage = require("diagc.testing.usage")

local M = {}

ffi.cdef [[
int fork(void);
int pipe(int fd[2]);
int close(int fd);
long read(int fd, void *buf, unsigned long n);
long write(int fd, const void *buf, unsigned long n);
int waitpid(int pid, int *status, int options);
void _exit(int status);
int fflush(void *stream);
unsigned int alarm(unsigned int seconds);
int setpgid(int pid, int pgid);
int getpid(void);
int getppid(void);
int prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5);
int kill(int pid, int sig);
struct diagc_pollfd { int fd; short events; short revents; };
int poll(struct diagc_pollfd *fds, unsigned long nfds, int timeout);
]]

local SIGKILL, WNOHANG, POLLIN, PR_SET_PDEATHSIG = 9, 1, 1, 1
-- the file-level child reports at least once per test, and each test is
-- bounded by --timeout: silence longer than this grace beyond it means the
-- file's process is stuck
local FILE_GRACE = 5

local function list_files(paths)
  local files = {}
  for _, p in ipairs(paths) do
    local f = io.open(p, "rb")
    local is_file = f and f:read(1) ~= nil
    if f then f:close() end
    if is_file and p:match("%.lua$") then
      files[#files + 1] = p
    else
      local h = io.popen("find '" .. p:gsub("'", "'\\''") .. "' -name '*_test.lua' -type f 2>/dev/null | sort")
      for line in h:lines() do files[#files + 1] = line end
      h:close()
    end
  end
  return files
end

local SIGNALS = { [6] = " (abort)", [8] = " (floating point exception)", [11] = " (segmentation fault)" }

local function crash_text(sig)
  return "crashed with signal " .. sig .. (SIGNALS[sig] or "")
end

-- Forks: the child runs child(fd), fd being the write end of a pipe, and
-- exits; the parent hands each chunk read from the pipe to on_chunk(s).
-- The child leads its own process group.  With `limit` > 0 the parent
-- kills that group once `limit` seconds have passed (since the start, or
-- with `idle` since the last chunk).  Once the child has exited, the parent
-- takes what is in the pipe, kills what is left of the group (a grandchild
-- holding the pipe) and stops reading.  Returns the signal that ended the
-- child (0 if it exited) and whether the parent killed it for time.
local function fork_piped(child, on_chunk, limit, idle)
  io.stdout:flush()
  io.stderr:flush()
  local host = require("diagc_host")
  local fds = ffi.new("int[2]")
  assert(ffi.C.pipe(fds) == 0)
  local parent = ffi.C.getpid()
  local pid = ffi.C.fork()
  if pid == 0 then
    ffi.C.setpgid(0, 0)
    -- out of the terminal's process group, the child would not see Ctrl-C:
    -- it dies with its parent instead (Linux), so nothing outlives the run
    ffi.C.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
    if ffi.C.getppid() ~= parent then ffi.C._exit(1) end
    ffi.C.close(fds[0])
    child(fds[1])
    io.stdout:flush()
    ffi.C._exit(0)
  end
  ffi.C.setpgid(pid, pid) -- also here: whichever runs first
  ffi.C.close(fds[1])
  local buf = ffi.new("char[4096]")
  local pfd = ffi.new("struct diagc_pollfd[1]")
  local status = ffi.new("int[1]")
  local deadline = limit and limit > 0 and host.now() + limit or nil
  local open, exited, timed_out, nap = true, false, false, 1
  while not exited do
    local wait_ms = 50
    if deadline then
      local left = deadline - host.now()
      if left <= 0 then
        ffi.C.kill(-pid, SIGKILL)
        timed_out = true
        break
      end
      wait_ms = math.min(wait_ms, math.ceil(left * 1000))
    end
    if open then
      pfd[0].fd, pfd[0].events, pfd[0].revents = fds[0], POLLIN, 0
      if ffi.C.poll(pfd, 1, wait_ms) > 0 then
        local n = ffi.C.read(fds[0], buf, 4096)
        if n > 0 then
          on_chunk(ffi.string(buf, n))
          if idle and deadline then deadline = host.now() + limit end
        elseif n == 0 then
          open = false
        end
      end
    else
      -- the pipe is closed: the child is exiting (or hangs without it);
      -- wait for it in short, growing naps
      ffi.C.poll(nil, 0, math.min(nap, wait_ms))
      nap = math.min(nap * 2, 50)
    end
    if ffi.C.waitpid(pid, status, WNOHANG) == pid then exited = true end
  end
  -- what the child wrote before it exited (or was killed)
  while open do
    pfd[0].fd, pfd[0].events, pfd[0].revents = fds[0], POLLIN, 0
    if ffi.C.poll(pfd, 1, 0) <= 0 then break end
    local n = ffi.C.read(fds[0], buf, 4096)
    if n <= 0 then break end
    on_chunk(ffi.string(buf, n))
  end
  ffi.C.close(fds[0])
  ffi.C.kill(-pid, SIGKILL) -- whatever the child left behind in its group
  if not exited then ffi.C.waitpid(pid, status, 0) end
  return status[0] % 128, timed_out
end

-- The text of an error in a test or a file's top level (an xpcall
-- handler: it runs on the stack of the error).  An error without a place
-- of its own (a diagc error without a location; a Lua error inside diagc's
-- modules) is put at the test file's line that called into diagc
-- (testing/usage.lua).
local function error_text(err)
  if errors.is(err) then
    local s = errors.format(err)
    if type(rawget(err, "loc")) ~= "table" then s = usage.where() .. s end
    return s
  end
  if type(err) ~= "string" then return errors.describe(err) end
  if usage.from_internal(err) then
    return usage.where() .. "diagc's " .. usage.strip_internal(err):gsub(": ", " failed: ", 1)
  end
  return err
end
M.error_text = error_text

-- Runs fn() in a forked child, killed after `timeout` seconds (0: none).
-- Returns true and what fn returned (a string, or "") or false and why it
-- failed.
local function run_forked(fn, timeout)
  local chunks = {}
  local sig, timed_out = fork_piped(function(fd)
    local ok, e = xpcall(fn, error_text)
    local msg = ok and ("ok " .. tostring(e or "")) or ("FAIL " .. tostring(e):gsub("\n", " | "))
    io.stdout:flush()
    ffi.C.write(fd, msg, #msg)
  end, function(chunk) chunks[#chunks + 1] = chunk end, timeout)
  local msg = table.concat(chunks)
  if timed_out or sig == 14 then return false, "timed out after " .. timeout .. " s (--timeout)" end
  if sig ~= 0 and sig ~= 127 then return false, crash_text(sig) end
  if msg:sub(1, 3) == "ok " then return true, msg:sub(4) end
  if msg == "" then return false, "the test process exited without reporting" end
  return false, msg:sub(6)
end

-- Runs one test file: its top level (which declares the tests), then each
-- selected test in its own forked child.  Writes "ok"/"FAIL" lines and
-- sends one byte per result ('+' or '-') to fd `report`.
local function run_file(file, filter, timeout, report)
  local host = require("diagc_host")
  local model = require("diagc.testing.model")
  local function result(good, line)
    io.stdout:write(line, "\n")
    io.stdout:flush()
    ffi.C.write(report, good and "+" or "-", 1)
  end
  local tests, prefix = {}, {}
  local env = setmetatable({}, { __index = _G })
  env.diagc = { jit = model.jit, compile = require("diagc.compile").compile, root = host.root(),
    dsl = require("diagc.spec.dsl").environment(function(path)
      return require("diagc.spec.load").import_value(path)
    end) }
  -- relative paths in a test file are relative to the test file's directory
  local dir = file:match("^(.*)/[^/]*$") or "."
  local function here(path)
    if type(path) == "string" and path:sub(1, 1) ~= "/" then return dir .. "/" .. path end
    return path
  end
  local dsl_env = env.diagc.dsl
  env.diagc.jit = function(spec, opts)
    if type(spec) == "string" then
      spec = here(spec)
    elseif require("diagc.spec.dsl").record(spec) and require("diagc.spec.dsl").is_system(spec) then
      spec = require("diagc.spec.load").freeze(spec)
    end
    return model.jit(spec, opts) -- a tail call: model.jit sees the test file as its caller
  end
  env.diagc.compile = function(path, opts) return require("diagc.compile").compile(here(path), opts) end
  env.diagc.dsl = setmetatable({ import = function(path)
    return require("diagc.spec.load").import_value(here(path))
  end }, { __index = function(_, k) return dsl_env[k] end })
  for k, v in pairs(assertions) do env[k] = v end
  -- a misused test() or group() is a failure at its line (the top level
  -- goes on: the file's other tests still run); test() inside a running
  -- test is an error there
  local running = false
  local function misuse(what, name, fn)
    local why
    if type(name) ~= "string" or name == "" then
      why = string.format("the name must be a non-empty string, got %s", require("diagc.cli.optcheck").show(name))
    elseif type(fn) ~= "function" then
      why = string.format("'%s': the second argument must be a function, got %s", name,
        require("diagc.cli.optcheck").show(fn))
    else
      return false
    end
    if running then usage.raise("%s(name, fn): %s; declare tests at the file's top level", what, why) end
    local at = usage.where():gsub(": $", "")
    tests[#tests + 1] = { name = at ~= "" and at or file, failure = what .. "(name, fn): " .. why }
    return true
  end
  env.test = function(name, fn)
    if misuse("test", name, fn) then return end
    if running then usage.raise("test('%s', fn) inside a running test; declare tests at the file's top level", name) end
    local full = table.concat(prefix, ".") .. (#prefix > 0 and "." or "") .. name
    tests[#tests + 1] = { name = full, fn = fn }
  end
  env.group = function(name, fn)
    if misuse("group", name, fn) then return end
    if running then usage.raise("group('%s', fn) inside a running test; declare groups at the file's top level", name) end
    prefix[#prefix + 1] = name
    fn()
    prefix[#prefix] = nil
  end
  local chunk, perr = loadfile(file)
  local ok, err
  if chunk then
    setfenv(chunk, env)
    if timeout > 0 then ffi.C.alarm(timeout) end
    ok, err = xpcall(chunk, error_text)
    ffi.C.alarm(0)
  else
    ok, err = false, perr
  end
  if not ok then
    result(false, string.format("FAIL %s: %s", file, tostring(err):gsub("\n", " | ")))
  end
  running = true
  for _, t in ipairs(tests) do
    if t.failure then
      result(false, string.format("FAIL %s: %s", t.name, t.failure))
    elseif not filter or t.name:find(filter, 1, true) then
      ffi.C.write(report, "#", 1)
      local t0 = host.now()
      local good, why = run_forked(t.fn, timeout)
      local ms = (host.now() - t0) * 1000
      if good then
        result(true, string.format("ok %s (%.1f ms)", t.name, ms))
      else
        result(false, string.format("FAIL %s: %s", t.name, why))
      end
    end
  end
end

function M.main(args)
  local o, paths = cli.parse(args, { flags = { ["--filter"] = true, ["--timeout"] = true } }, "diagc test")
  local filter = o["--filter"] or os.getenv("DIAGC_TEST_FILTER")
  if filter == "" then filter = nil end
  local timeout = 120
  if o["--timeout"] then
    timeout = cli.number("diagc test", "--timeout", o["--timeout"])
    if timeout < 0 or timeout ~= math.floor(timeout) then
      errors.raise(nil, "diagc test: --timeout must be a whole number of seconds (0: none)")
    end
  end
  if #paths == 0 then paths = { "tests" } end
  local files = list_files(paths)
  if #files == 0 then errors.raise(nil, "diagc test: no test files found in %s", table.concat(paths, " ")) end
  local passed, failed, selected = 0, 0, 0

  -- each file in a forked child too: a crash or a hang in a file's top
  -- level (or in the runner) fails that file only
  for _, file in ipairs(files) do
    local done = false
    local sig, timed_out = fork_piped(function(fd)
      local ok, e = pcall(run_file, file, filter, timeout, fd)
      if not ok then
        io.stdout:write(string.format("FAIL %s: %s\n", file, tostring(e):gsub("\n", " | ")))
        ffi.C.write(fd, "-", 1)
      end
      io.stdout:flush()
      ffi.C.write(fd, ".", 1)
    end, function(chunk)
      for k = 1, #chunk do
        local ch = chunk:sub(k, k)
        if ch == "+" then passed = passed + 1
        elseif ch == "-" then failed = failed + 1
        elseif ch == "#" then selected = selected + 1
        elseif ch == "." then done = true end
      end
    end, timeout > 0 and timeout + FILE_GRACE or 0, true)
    if not done then
      failed = failed + 1
      io.stdout:write(string.format("FAIL %s: %s\n", file, (sig == 14 or timed_out)
        and ("top level timed out after " .. timeout .. " s (--timeout)")
        or (sig ~= 0 and crash_text(sig) or "the runner exited early")))
    end
  end
  io.stdout:flush()
  io.stdout:write(string.format("%d passed, %d failed\n", passed, failed))
  -- (DIAGC_TEST_FILTER selects across suites in tests/run: matching
  -- nothing here is fine there)
  if o["--filter"] and selected == 0 and failed == 0 then
    errors.raise(nil, "diagc test: --filter '%s' matches no test in %s; check the name "
      .. "(a plain substring of the full test name)", filter, table.concat(paths, " "))
  end
  return failed > 0 and 1 or 0
end

return M
