-- cdiff/stage.lua: the differentiation stage of the pipeline (after
-- check/c_text.lua, before flatten).  Analyzes, once per leaf type, every
-- calc whose value can enter a Jacobian (output ports, cache entries,
-- derivatives, energies, and discrete updates: every calc but the other
-- events').  A calc outside the
-- differentiable subset is no error here (whether it is depends on
-- whether a Jacobian needs it); a calc in it that can leave an element of
-- its outputs unwritten is one, at its spec line.
--
-- Adds to each such calc:
--   calc.diff = { r = the analysis (cdiff/init.lua: pattern, jacobian()) }
--            or { problem = {...}, loc = {file=, line=, col=}, why = text }
--   and, for a calc declared jacobian = "finite_difference" whose values
--   are all double, calc.diff.fd = its interface (cdiff/iface.lua: the
--   sizes coder/jacobian_fd.lua perturbs and differences)
-- With no host lexer (plain LuaJIT) nothing is added.
local cdiff = require("diagc.cdiff")
local iface = require("diagc.cdiff.iface")
local errors = require("diagc.errors")
local scope = require("diagc.check.scope")


-- The spec location of a problem or finding: body_loc is the calc's
-- (calc.body_loc), preamble_locs the leaf's preambles' ({loc, ...}).
local function location(p, body_loc, preamble_locs)
  local map = require("diagc.check.c_code").loc_mapper
  if p.source == "preamble" and preamble_locs and preamble_locs[p.preamble or 1] then
    return map(preamble_locs[p.preamble or 1])(p.line, p.col)
  end
  return map(body_loc)(p.line, p.col)
end

local M = {}
M.location = location

local function preamble_texts(lt)
  local texts, locs = {}, {}
  for i, pre in ipairs(lt.preambles) do texts[i], locs[i] = pre.text, pre.loc end
  return texts, locs
end

-- The analysis of one calc of leaf type lt with the given parameters
-- (calc.params by default): the value calc.diff takes.
function M.analyze(lt, calc, lex, params)
  local itf, why = iface.of(lt, calc, params or calc.params)
  if not itf then return { why = why, loc = calc.body_loc } end
  local texts, locs = preamble_texts(lt)
  local ok, r, problem = pcall(cdiff.analyze, { body = calc.body, preamble = texts,
    inputs = itf.inputs, outputs = itf.outputs, lex = lex })
  if not ok then return { why = "internal: " .. tostring(r), loc = calc.body_loc } end
  if r then return { r = r } end
  return { problem = problem, why = cdiff.describe(problem),
    loc = location(problem, calc.body_loc, locs) }
end

-- A calc owns every element of its outputs: one it may leave unwritten
-- (or reads before writing) would hold a stale value.  Checked wherever
-- the body is in the differentiable subset (an update's x_next may keep
-- its value, as Drake's state updates do: no finding).
local MUST = { never_written = true, maybe_unwritten = true, read_before_write = true }
local FIX = {
  never_written = "assign it in the body",
  maybe_unwritten = "assign it on every path (e.g. before the if, or in both branches)",
  read_before_write = "assign it before reading it, or read a local instead",
}

local function check_writes(lt, calc)
  for _, f in ipairs(calc.diff.r.findings) do
    if MUST[f.kind] then
      local _, locs = preamble_texts(lt)
      errors.raise(location(f, calc.body_loc, locs), "the calc of %s of leaf \"%s\": %s; %s",
        scope.what_calc(lt, calc), lt.name, f.message, FIX[f.kind])
    end
  end
end

-- A world's calcs (world/lower.lua) call its generated dynamics and the
-- runtime's contact solve: not differentiated (linearize such a model with
-- finite differences); their bodies are not parsed.
local WORLD_WHY = "it belongs to a world, whose step is not differentiated by diagc yet; "
  .. "use finite differences (--jacobian fd)"

function M.run(model, lex)
  if not lex then return end
  for _, lt in ipairs(model.leaf_types) do
    for _, calc in ipairs(lt.calcs) do
      if lt.world and (calc.kind ~= "event" or calc.event_kind == "discrete_update") then
        calc.diff = { why = WORLD_WHY, loc = calc.body_loc }
      elseif calc.kind ~= "event" or calc.event_kind == "discrete_update" then
        calc.diff = M.analyze(lt, calc, lex)
        if calc.diff.r then check_writes(lt, calc) end
        if calc.jacobian == "finite_difference" then calc.diff.fd = iface.of(lt, calc, calc.params) end
      end
    end
  end
end

return M
