-- cdiff/stage.lua: the differentiation stage of the pipeline (after
-- check/c_text.lua, before flatten).  Analyzes, once per leaf type, every
-- calc whose value can enter a Jacobian (output ports, cache entries,
-- derivatives, energies: every calc but events'); raises nothing: whether a calc outside the differentiable
-- subset is an error depends on whether a Jacobian needs it.
--
-- Adds to each such calc:
--   calc.diff = { r = the analysis (cdiff/init.lua: pattern, jacobian()) }
--            or { problem = {...}, loc = {file=, line=, col=}, why = text }
-- With no host lexer (plain LuaJIT) nothing is added.
local cdiff = require("diagc.cdiff")
local iface = require("diagc.cdiff.iface")

local M = {}

local function preamble_texts(lt)
  local texts, locs = {}, {}
  for i, pre in ipairs(lt.preambles) do texts[i], locs[i] = pre.text, pre.loc end
  return texts, locs
end

local function analyze(lt, calc, lex)
  local itf, why = iface.of(lt, calc, calc.params)
  if not itf then return { why = why, loc = calc.body_loc } end
  local texts, locs = preamble_texts(lt)
  local ok, r, problem = pcall(cdiff.analyze, { body = calc.body, preamble = texts,
    inputs = itf.inputs, outputs = itf.outputs, lex = lex })
  if not ok then return { why = "internal: " .. tostring(r), loc = calc.body_loc } end
  if r then return { r = r } end
  return { problem = problem, why = cdiff.describe(problem),
    loc = cdiff.location(problem, calc.body_loc, locs) }
end

function M.run(model, lex)
  if not lex then return end
  for _, lt in ipairs(model.leaf_types) do
    for _, calc in ipairs(lt.calcs) do
      if calc.kind ~= "event" then calc.diff = analyze(lt, calc, lex) end
    end
  end
end

return M
