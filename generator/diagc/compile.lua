-- compile.lua: the whole pipeline, one stage per module:
--   spec.load -> check -> check.c_text -> cdiff.infer -> cdiff.stage -> flatten -> tickets.graph
--   -> tickets.loops -> tickets.eval_paths -> masks -> coder.c_model
local M = {}

-- The version lives in one place, the file VERSION at the root (the
-- checkout, or PREFIX/share/diagc once installed: two levels above this
-- file's folder).  The Makefile copies it into runtime/include/diagc/version.h,
-- diagc.pc and the CMake package; tests/cli/install.sh checks they agree.
local function read_version()
  local src = debug.getinfo(1, "S").source
  -- ROOT/generator/diagc/compile.lua -> ROOT/VERSION
  local path = src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]+/[^/]+/[^/]+$")
  path = (path or "../..") .. "/VERSION"
  local f = io.open(path, "rb")
  local v = f and f:read("*l")
  if f then f:close() end
  if not v or not v:match("^%d+%.%d+%.%d+$") then
    -- a broken checkout or install: one line, exit 2 (not an internal error)
    io.stderr:write("diagc: cannot read the version (MAJOR.MINOR.PATCH) from " .. path
      .. "; reinstall with make install\n")
    os.exit(2)
  end
  return v
end
M.VERSION = read_version()

local function host_lexer()
  local ok, host = pcall(require, "diagc_host")
  if ok and host.lex_c then return host.lex_c end
  return nil
end

-- Sanitize a name into a C identifier prefix.
function M.prefix_of(name)
  local p = name:gsub("[^%w_]", "_")
  if not p:match("^[A-Za-z]") then p = "m_" .. p end
  return p
end

-- opts: {prefix=, header_name=, source_name=, spec_name=, no_jacobian=
-- (true: emit no d xcdot / d xc, as `diagc -o --no-jacobian`)}
-- Returns {header=, source=, prefix=, flat=, entry_points=, model=}
function M.compile(path, opts)
  opts = opts or {}
  local loaded = require("diagc.spec.load").load(path)
  return M.compile_loaded(loaded, opts)
end

function M.compile_loaded(loaded, opts)
  local model = require("diagc.check").check(loaded)
  local prefix = opts.prefix or M.prefix_of(model.root.name)
  if prefix:lower() == "diagc" or prefix:lower():match("^diagc_") then
    require("diagc.errors").raise(opts.prefix and nil or model.root.loc,
      "model name '%s' is reserved: it would clash with the runtime's diagc_ names; "
      .. "rename the diagram or pass --name", prefix)
  end
  local long = require("diagc.vocab.limits").name_problem("model name", prefix)
  if long then require("diagc.errors").raise(opts.prefix and nil or model.root.loc, "%s", long) end
  local header_name = opts.header_name or (prefix .. ".h")
  local source_name = opts.source_name or (prefix .. ".c")
  local lex = opts.lex == nil and host_lexer() or opts.lex or nil
  require("diagc.check.c_text").check(model, { prefix = prefix, header_name = header_name,
    source_name = source_name, sources = loaded.sources, lex = lex })
  require("diagc.cdiff.infer").run(model, lex)
  require("diagc.cdiff.stage").run(model, lex)
  local F = require("diagc.flatten").flatten(model)
  local G = require("diagc.tickets.graph").build(F)
  require("diagc.tickets.loops").compute(F)
  F.eval_paths = require("diagc.tickets.eval_paths").compute(F)
  local eps = require("diagc.masks").compute(F, G)
  local gen = require("diagc.coder.c_model").generate(F, eps, {
    prefix = prefix,
    header_name = header_name,
    source_name = source_name,
    spec_name = opts.spec_name or loaded.main,
    version = M.VERSION,
    leaf_types = model.leaf_types,
    default_accuracy = 1e-4,
    no_jacobian = opts.no_jacobian,
    graph = G,
  })
  gen.header_name = header_name
  gen.sources = loaded.sources
  gen.source_name = source_name
  gen.prefix, gen.flat, gen.entry_points, gen.model, gen.graph = prefix, F, eps, model, G
  return gen
end

return M
