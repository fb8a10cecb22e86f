-- testing/runner.lua: diagc test [FILE|DIR ...] [--filter PATTERN]
-- Runs Lua test files.  Each test runs in a forked child, so a crash in
-- generated code fails that test only.  Prints "ok NAME (T ms)" or
-- "FAIL NAME: where: why" per test and ends with "N passed, N failed".
local ffi = require("ffi")
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local assertions = require("diagc.testing.assert")

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
]]

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

local function run_forked(fn)
  io.stdout:flush()
  io.stderr:flush()
  local fds = ffi.new("int[2]")
  assert(ffi.C.pipe(fds) == 0)
  local pid = ffi.C.fork()
  if pid == 0 then
    ffi.C.close(fds[0])
    local ok, e = xpcall(fn, function(err)
      if errors.is(err) then return errors.format(err) end
      return tostring(err)
    end)
    local msg = ok and "ok" or ("FAIL " .. tostring(e):gsub("\n", " | "))
    io.stdout:flush()
    ffi.C.write(fds[1], msg, #msg)
    ffi.C._exit(0)
  end
  ffi.C.close(fds[1])
  local chunks, buf = {}, ffi.new("char[4096]")
  while true do
    local n = ffi.C.read(fds[0], buf, 4096)
    if n <= 0 then break end
    chunks[#chunks + 1] = ffi.string(buf, n)
  end
  ffi.C.close(fds[0])
  local status = ffi.new("int[1]")
  ffi.C.waitpid(pid, status, 0)
  local st = status[0]
  local sig = st % 128
  if sig ~= 0 and sig ~= 127 then
    return false, "crashed with signal " .. sig .. (sig == 11 and " (segmentation fault)" or "")
      .. (sig == 6 and " (abort)" or "") .. (sig == 8 and " (floating point exception)" or "")
  end
  local msg = table.concat(chunks)
  if msg == "ok" then return true end
  if msg == "" then return false, "the test process exited without reporting" end
  return false, msg:sub(6)
end

function M.main(args)
  local o, paths = cli.parse(args, { flags = { ["--filter"] = true } }, "diagc test")
  local filter = o["--filter"] or os.getenv("DIAGC_TEST_FILTER")
  if filter == "" then filter = nil end
  if #paths == 0 then paths = { "tests" } end
  local files = list_files(paths)
  if #files == 0 then errors.raise(nil, "diagc test: no test files found in %s", table.concat(paths, " ")) end
  local host = require("diagc_host")
  local passed, failed = 0, 0
  local model = require("diagc.testing.model")

  for _, file in ipairs(files) do
    local tests, prefix = {}, {}
    local env = setmetatable({}, { __index = _G })
    env.diagc = { jit = model.jit, compile = require("diagc.compile").compile, root = host.root(),
      dsl = require("diagc.spec.dsl").environment(function(path) return require("diagc.spec.load").import_value(path) end) }
    for k, v in pairs(assertions) do env[k] = v end
    env.test = function(name, fn)
      local full = table.concat(prefix, ".") .. (#prefix > 0 and "." or "") .. name
      tests[#tests + 1] = { name = full, fn = fn }
    end
    env.group = function(name, fn)
      prefix[#prefix + 1] = name
      fn()
      prefix[#prefix] = nil
    end
    local chunk, perr = loadfile(file)
    local ok, err
    if chunk then
      setfenv(chunk, env)
      ok, err = xpcall(chunk, function(e)
        if errors.is(e) then return errors.format(e) end
        return tostring(e)
      end)
    else
      ok, err = false, perr
    end
    if not ok then
      failed = failed + 1
      io.stdout:write(string.format("FAIL %s: %s\n", file, tostring(err):gsub("\n", " | ")))
    end
    for _, t in ipairs(tests) do
      if not filter or t.name:find(filter, 1, true) then
        local t0 = host.now()
        local good, why = run_forked(t.fn)
        local ms = (host.now() - t0) * 1000
        if good then
          passed = passed + 1
          io.stdout:write(string.format("ok %s (%.1f ms)\n", t.name, ms))
        else
          failed = failed + 1
          io.stdout:write(string.format("FAIL %s: %s\n", t.name, why))
        end
        io.stdout:flush()
      end
    end
  end
  io.stdout:write(string.format("%d passed, %d failed\n", passed, failed))
  return failed > 0 and 1 or 0
end

return M
