-- cdiff/activity.lua: exact static sparsity of an unrolled calc.
-- Takes the program of cdiff/unroll.lua; adds, for every value, the set
-- of input elements it depends on differentiably, and so for every
-- output element the input elements of its Jacobian row.  Only value
-- dependencies count (as forward-mode AD sees them): comparisons, int
-- values, floor/ceil and the sign argument of copysign carry none; a phi
-- (a join after a run-time branch) depends on the union of its sides;
-- x * 0.0 and x - x depend on nothing (their derivative is 0).
--
-- Result: {cols = {{name=, index=}, ...} (the active input elements, in
--   interface order then index order; j = position), col_of = {[name] =
--   {[index] = j}}, deps = {[id] = {j, ...} ascending},
--   rows = {{out=, index=, id=, deps={j, ...}}, ...} (every output
--   element, in interface order then index order)}
local mathfns = require("diagc.cdiff.mathfns").fns

local M = {}

-- Which arguments of a math function have a nonzero partial.
local function live_args(fn)
  local f = mathfns[fn]
  if f.select then return { true, true } end
  local A = {}
  for k = 1, f.n do A[k] = "a" .. k end
  local d = f.d(A, "r")
  local out = {}
  for k = 1, f.n do out[k] = d[k] ~= nil end
  return out
end
M.live_args = live_args

local function union(a, b)
  if #a == 0 then return b end
  if #b == 0 or a == b then return a end
  local out, i, j = {}, 1, 1
  while i <= #a or j <= #b do
    local x, y = a[i], b[j]
    if y == nil or (x ~= nil and x < y) then out[#out + 1] = x; i = i + 1
    elseif x == nil or y < x then out[#out + 1] = y; j = j + 1
    else out[#out + 1] = x; i = i + 1; j = j + 1 end
  end
  return out
end

local EMPTY = {}

local function zero(prog, id)
  local v = prog.vals[id]
  return v.op == "const" and tonumber(v.v) == 0
end
local CUT = { const = true, old = true, mod = true, ["not"] = true, lt = true, gt = true,
  le = true, ge = true, eq = true, ne = true, cvt = true }

function M.analyze(prog)
  local cols, col_of = {}, {}
  for _, x in ipairs(prog.iface.inputs) do
    col_of[x.name] = {}
    if x.active ~= false and (x.ty or "double") == "double" then
      for i = 0, (x.size or 1) - 1 do
        cols[#cols + 1] = { name = x.name, index = i }
        col_of[x.name][i] = #cols
      end
    end
  end
  local deps, live = {}, {}
  for id = 1, #prog.vals do
    local v = prog.vals[id]
    local d = EMPTY
    if v.op == "old" and v.preload then
      local j = col_of[v.preload][v.index]
      d = j and { j } or EMPTY
    elseif v.ty == "int" or CUT[v.op] then
      d = EMPTY
    elseif v.op == "in" then
      local j = col_of[v.name][v.index]
      d = j and { j } or EMPTY
    elseif v.op == "call" then
      live[v.fn] = live[v.fn] or live_args(v.fn)
      for k, a in ipairs(v.args) do
        if live[v.fn][k] then d = union(d, deps[a]) end
      end
    elseif v.op == "mul" and (zero(prog, v.args[1]) or zero(prog, v.args[2])) then
      d = EMPTY -- x * 0.0: the derivative is the constant 0
    elseif v.op == "sub" and v.args[1] == v.args[2] then
      d = EMPTY -- x - x
    else
      for _, a in ipairs(v.args) do d = union(d, deps[a]) end
    end
    deps[id] = d
  end
  local rows = {}
  for _, x in ipairs(prog.iface.outputs) do
    for i = 0, (x.size or 1) - 1 do
      local id = prog.final[x.name][i]
      rows[#rows + 1] = { out = x.name, index = i, id = id, deps = deps[id] }
    end
  end
  return { cols = cols, col_of = col_of, deps = deps, rows = rows }
end

return M
