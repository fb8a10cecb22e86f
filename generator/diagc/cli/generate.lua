-- cli/generate.lua: diagc SPEC.lua -o OUT.c  (writes OUT.c and OUT.h)
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local compile = require("diagc.compile")
local util = require("diagc.util")

local M = {}

function M.main(args)
  local o, pos = cli.parse(args, { flags = { ["-o"] = true, ["--name"] = true, ["--no-check"] = false } }, "diagc")
  if #pos ~= 1 then
    errors.raise(nil, "expected one spec file, as in: diagc spec.lua -o model.c")
  end
  local outc = o["-o"]
  if not outc then errors.raise(nil, "missing -o OUT.c (the generated source; OUT.h is written beside it)") end
  if not outc:match("%.c$") then errors.raise(nil, "-o must name a .c file, got '%s'", outc) end
  local outh = outc:gsub("%.c$", ".h")
  local gen = compile.compile(pos[1], {
    prefix = o["--name"] and compile.prefix_of(o["--name"]) or nil,
    header_name = util.basename(outh),
    source_name = util.basename(outc),
  })
  if not o["--no-check"] then
    -- compile once in-process so C errors in calc bodies are reported
    -- (at their spec lines) before anything is written
    if pcall(require, "diagc_host") then
      require("diagc.jit").compile(gen, { allow_undefined = true })
    end
  end
  local host_ok, host = pcall(require, "diagc_host")
  local function write(path, text)
    if host_ok then
      local ok, err = host.write_file_atomic(path, text)
      if not ok then errors.raise(nil, "cannot write '%s': %s", path, tostring(err)) end
    else
      local f, err = io.open(path, "wb")
      if not f then errors.raise(nil, "cannot write '%s': %s", path, tostring(err)) end
      f:write(text)
      f:close()
    end
  end
  write(outh, gen.header)
  write(outc, gen.source)
  return 0
end

return M
