-- cdiff/infer.lua: prerequisites = "inferred" (issue 16 item 4).  Runs
-- after check/c_text.lua, which checked each inferred body against the
-- widest scope check/leaf.lua gave it (all_sources, every other cache
-- entry, every computed value the leaf declares), and before
-- cdiff/stage.lua, which then analyzes the narrowed calc.
--
-- Reads the body with cdiff (the differentiable subset: every value it
-- reads is named, through the c_preamble's constants too) and keeps the
-- tickets behind what it reads on some path (cdiff's r.reads), plus those
-- behind every value the body names (a branch decided at compile time
-- still names its values, and the body must compile).  A value's ticket
-- is the one a hand-written list would give it: t -> time, q/v/z -> q/v/z,
-- qdot/vdot/zdot -> xcdot, a group, parameter, input port or cache entry
-- -> its own name, pe ke pc pnc -> themselves, accuracy -> accuracy.
--
-- Changes in the model, for every calc with calc.inferred:
--   calc.prereqs  refilled in place (a witness's or next_update_time's
--                 calc and event share one list: the union of what both
--                 read) with those tickets in parameter order (time,
--                 accuracy, q, v, z, groups, abstract states, parameters,
--                 abstract parameters, input ports, cache entries, xcdot,
--                 pe, ke, pc, pnc); {"nothing"} when the bodies read nothing
--   calc.params   recomputed from them (check/scope.lua)
-- so flatten, the ticket graph and the masks see an ordinary list.  A body
-- outside the subset, or reading or writing a value of a C type other
-- than double, is an error at that construct's spec line; so is
-- "inferred" with no host lexer (plain LuaJIT: the widest lists would
-- make every pair of cache entries a cycle).
local errors = require("diagc.errors")
local scope = require("diagc.check.scope")
local leaf = require("diagc.check.leaf")
local c_code = require("diagc.check.c_code")
local stage = require("diagc.cdiff.stage")

local M = {}

-- the ticket a read parameter's key stands for
local function ticket_of(key)
  if key == "t" then return "time" end
  if key == "accuracy" or key == "q" or key == "v" or key == "z" then return key end
  return key:match("^builtin:(%a+)") or key:match("^%a+:(.*)$")
end

-- the C type of the value a parameter passes ("const double *" -> "double")
local function value_type(p)
  return (p.ctype:gsub("const ", ""):gsub("%s*%*$", ""))
end

local function fail(lt, calc, loc, why)
  errors.raise(loc, "the calc of %s of leaf \"%s\" cannot infer its prerequisites: %s; list the "
    .. "prerequisites instead of \"inferred\"", scope.what_calc(lt, calc), lt.name, why)
end

-- The parameters cdiff reads the body with: what it writes, and every
-- double it may read (a value of another C type has no place in the
-- subset: an error where the body names it, else left out).
local function analysis_params(lt, calc, used)
  local ps = {}
  for _, p in ipairs(calc.params) do
    if value_type(p) == "double" then
      ps[#ps + 1] = p
    elseif used[p.name] then
      local tk = used[p.name]
      fail(lt, calc, c_code.loc_mapper(calc.body_loc)(tk.line, tk.col), string.format("'%s' is of "
        .. "C type %s, and only doubles are in the differentiable subset of C (see docs/jacobians.md)",
        p.name, value_type(p)))
    end
  end
  return ps
end

-- adds to `want` the tickets of what the calc's body reads and names
local function body_tickets(lt, calc, lex, want)
  local used = scope.names_used(lt, calc, lex) or {}
  local ps = analysis_params(lt, calc, used)
  local d = stage.analyze(lt, calc, lex, ps)
  if not d.r then fail(lt, calc, d.loc, d.why) end
  local read = {}
  for _, name in ipairs(d.r.reads) do read[name] = true end
  for _, p in ipairs(calc.params) do
    if not p.write and (read[p.name] or used[p.name]) then want[ticket_of(p.key)] = true end
  end
end

-- the inferred calcs of a leaf type, grouped by their (shared) list
local function groups(lt)
  local out, by = {}, {}
  for _, c in ipairs(leaf.all_calcs(lt)) do
    if c.inferred then
      local g = by[c.prereqs]
      if not g then
        g = {}
        by[c.prereqs] = g
        out[#out + 1] = g
      end
      g[#g + 1] = c
    end
  end
  return out
end

local function narrow(lt, group, lex)
  local want = {}
  for _, c in ipairs(group) do body_tickets(lt, c, lex, want) end
  local list = group[1].prereqs
  for i = #list, 1, -1 do list[i] = nil end
  for _, p in ipairs(group[1].params) do
    local tk = not p.write and ticket_of(p.key)
    if tk and want[tk] then
      want[tk] = nil
      list[#list + 1] = tk
    end
  end
  if #list == 0 then list[1] = "nothing" end
  for _, c in ipairs(group) do c.params = scope.params(lt, c) end
end

function M.run(model, lex)
  for _, lt in ipairs(model.leaf_types) do
    for _, g in ipairs(groups(lt)) do
      if not lex then
        errors.raise(g[1].loc, "prerequisites = \"inferred\" needs the C lexer of bin/diagc to "
          .. "read the body; run diagc, or list the prerequisites")
      end
      narrow(lt, g, lex)
    end
  end
end

return M
