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

-- (a world's preamble is its generated step: its output calcs that call
-- it, poses and energy, stay outside the subset, and the rest (copies of
-- its state) need none of it, so it is not parsed)
local function preamble_texts(lt)
  local texts, locs = {}, {}
  if lt.world then return texts, locs end
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

-- A world's typed cache entries (world/lower.lua: work, the step; grad,
-- its Jacobians) are not differentiated as C; the world's update "step"
-- has its Jacobian from the grad entry (world/grad_coords.lua: diff.world
-- = its pattern, for coder/jacobian_chain.lua); its other calcs (output
-- ports) are analyzed as any calc.
-- (world_step: the reason is the world's, with its own advice; declaring
-- jacobian = "finite_difference" does not apply: coder/jacobian_chain.lua)
local WORLD_WHY = "it is a world's step, which has a Jacobian only as the world's update (outputs that "
  .. "read it, such as poses and energy, have none); leave those outputs out (--output-port) or use "
  .. "finite differences (--jacobian fd)"
local NO_GRAD_WHY = "its world sets gradients = false (no step Jacobians); use finite differences "
  .. "(--jacobian fd) or remove gradients = false"

local function world_diff(lt, calc)
  if calc.kind == "event" then
    if not lt.world.settings.gradients then return { why = NO_GRAD_WHY, loc = calc.body_loc, world_step = true } end
    local gc = require("diagc.world.grad_coords")
    local pattern = gc.pattern(lt.world)
    if not pattern then
      return { why = string.format("its world's dense update Jacobian would have %d entries, more than the "
        .. "limit of %d (its rows grow with max_contacts = %d: the warm start holds 4 values per contact); use "
        .. "finite differences (--jacobian fd)", gc.size(lt.world), gc.MAX_ENTRIES, lt.world.max_contacts),
        loc = calc.body_loc, world_step = true }
    end
    return { world = pattern, loc = calc.body_loc, world_step = true }
  end
  return { why = WORLD_WHY, loc = calc.body_loc, world_step = true }
end

function M.run(model, lex)
  if not lex then return end
  for _, lt in ipairs(model.leaf_types) do
    for _, calc in ipairs(lt.calcs) do
      if lt.world and (calc.kind == "cache" or calc.kind == "event") and calc.event_kind ~= "publish" then
        calc.diff = world_diff(lt, calc)
      elseif calc.kind ~= "event" or calc.event_kind == "discrete_update" then
        calc.diff = M.analyze(lt, calc, lex)
        if calc.diff.r then check_writes(lt, calc) end
        if calc.jacobian == "finite_difference" then
          calc.diff.fd, calc.diff.fd_why = iface.of(lt, calc, calc.params)
        end
      end
    end
  end
end

return M
