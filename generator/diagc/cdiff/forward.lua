-- cdiff/forward.lua: forward-mode source transformation.
-- Takes an unrolled calc (cdiff/unroll.lua) and its activity
-- (cdiff/activity.lua); adds C99 statements that compute the calc's
-- outputs and the structural nonzeros of its Jacobian, one per entry of
-- `pattern`, into a `double *` array (jac[k] = d out[out_index] / d
-- input[in_index] for pattern[k]).  The statements go into a function
-- that receives the calc's parameters (the inputs as `const double *` or
-- scalars, the outputs as `double *`) and the jac array.
--
-- One C variable per value (three-address code, so every primal is
-- computed once and shared by all the partials that need it); for each
-- value, one variable per input element it depends on, except where the
-- derivative is a constant or just another one's (then none).  Only what
-- an output or a Jacobian entry needs is emitted, and equal derivative
-- expressions share one variable (nothing unused, so the
-- code is -Wall -Wextra clean).  Branches on run-time values stay
-- branches: the derivative is that of the branch taken.
--
-- generate(prog, act[, opts]) -> {code=, pattern={{out=, out_index=,
--   input=, in_index=}, ...}}; opts.jac = name of the array (default
--   "jac"), opts.outputs = false to leave the outputs unwritten,
--   opts.inputs = {[name] = true}: only the columns of these inputs,
--   opts.prefix = prefix of the temporaries (default: "cd_", or a
--   variant no interface name starts with).
local mathfns = require("diagc.cdiff.mathfns").fns

local M = {}

local function num(v, ty)
  if ty == "int" then
    local s = string.format("%d", v)
    return v < 0 and "(" .. s .. ")" or s
  end
  if v ~= v then return "NAN" end
  if v == math.huge then return "HUGE_VAL" end
  if v == -math.huge then return "(-HUGE_VAL)" end
  local s = string.format("%.17g", v)
  if not s:find("[.e]") then s = s .. ".0" end
  return s:sub(1, 1) == "-" and "(" .. s .. ")" or s
end
M.num = num

-- Partial templates of the arithmetic ops: numbers, or C text where
-- \1k\2 is argument k and \1r\2 the result.
local function A(k) return "\1" .. k .. "\2" end
local R = "\1r\2"
local OPS = {
  add = function() return { 1, 1 } end,
  sub = function() return { 1, -1 } end,
  neg = function() return { -1 } end,
  mul = function() return { A(2), A(1) } end,
  div = function() return { "1.0 / " .. A(2), "-" .. R .. " / " .. A(2) } end,
}

local templates = {}
local function partials(v)
  if v.op == "call" then
    local f = mathfns[v.fn]
    if f.select then return nil end
    if not templates[v.fn] then
      local args = {}
      for k = 1, f.n do args[k] = A(k) end
      templates[v.fn] = f.d(args, R)
    end
    return templates[v.fn]
  end
  return OPS[v.op] and OPS[v.op]()
end

local function uses(tmpl)
  local out = {}
  if type(tmpl) == "string" then
    for w in tmpl:gmatch("\1(%w+)\2") do out[#out + 1] = w end
  end
  return out
end

local BIN = { add = "+", sub = "-", mul = "*", div = "/", mod = "%", lt = "<", gt = ">", le = "<=",
  ge = ">=", eq = "==", ne = "!=" }

local function set_of(list)
  local s = {}
  for _, j in ipairs(list) do s[j] = true end
  return s
end

local sorted = require("diagc.util").sorted_keys

local function pick_prefix(iface)
  local names = {}
  for _, x in ipairs(iface.inputs) do names[#names + 1] = x.name end
  for _, x in ipairs(iface.outputs) do names[#names + 1] = x.name end
  local n = 0
  while true do
    local p = n == 0 and "cd_" or ("cd" .. n .. "_")
    local clash = false
    for _, name in ipairs(names) do if name:sub(1, #p) == p then clash = true end end
    if not clash then return p end
    n = n + 1
  end
end

-- Liveness ---------------------------------------------------------------

local function liveness(prog, act, P, D)
  local vals, deps = prog.vals, act.deps
  local depset = setmetatable({}, { __index = function(t, id)
    local s = set_of(deps[id])
    t[id] = s
    return s
  end })
  local function need_d(id, j) D[id] = D[id] or {}; D[id][j] = true end
  local function live_def(id)
    local v = vals[id]
    local d = D[id]
    if d and next(d) then
      local f = v.op == "call" and mathfns[v.fn]
      if f and f.select then
        for _, a in ipairs(v.args) do P[a] = true end
        for j in pairs(d) do
          for _, a in ipairs(v.args) do if depset[a][j] then need_d(a, j) end end
        end
      else
        local ps = partials(v)
        for k, a in ipairs(v.args) do
          local tmpl = ps[k]
          if tmpl ~= nil then
            local any = false
            for j in pairs(d) do
              if depset[a][j] then need_d(a, j); any = true end
            end
            if any then
              for _, w in ipairs(uses(tmpl)) do
                if w == "r" then P[id] = true else P[v.args[tonumber(w)]] = true end
              end
            end
          end
        end
      end
    end
    if P[id] then for _, a in ipairs(v.args) do P[a] = true end end
    return P[id] or (d and next(d) ~= nil)
  end
  local function block(list)
    local any = false
    for i = #list, 1, -1 do
      local s = list[i]
      if s.k == "def" then
        if live_def(s.id) then any = true end
      else
        local live = false
        for _, ph in ipairs(s.phis) do
          local a, b = vals[ph].args[1], vals[ph].args[2]
          if P[ph] then P[a], P[b], live = true, true, true end
          for j in pairs(D[ph] or {}) do
            live = true
            if depset[a][j] then need_d(a, j) end
            if depset[b][j] then need_d(b, j) end
          end
        end
        local lt = block(s.then_)
        local le = block(s.else_)
        s.live = live or lt or le
        if s.live then P[s.c] = true; any = true end
      end
    end
    return any
  end
  block(prog.body)
end

-- Emission ---------------------------------------------------------------

local function is_number(t) return tonumber((t:gsub("[()]", ""))) ~= nil end
local function is_simple(t) return t:match("^[%w_%[%]]+$") ~= nil end

-- The product of a partial (number or C text) and a derivative ({c=} or
-- {t=}); compound = the text is not a plain name or element.
local function term(p, d)
  if p == 0 then return { c = 0 } end
  if type(p) == "number" then
    if d.c then return { c = p * d.c } end
    if p == 1 then return { t = d.t } end
    if p == -1 then return { t = "-" .. d.t, compound = true } end
    return { t = num(p, "double") .. " * " .. d.t, compound = true }
  end
  if d.c then
    if d.c == 1 then return { t = p } end
    return { t = p .. " * " .. num(d.c, "double"), compound = true }
  end
  return { t = p .. " * " .. d.t, compound = true }
end

-- An emitter: the lines of C, the derivative of each value in each
-- column ({c=} a constant, {t=} a C text), the expressions computed so far.
local E = {}
E.__index = E

function E:line(s) self.lines[#self.lines + 1] = string.rep("  ", self.depth) .. s end

-- A variable holding text, or the one an enclosing block already holds it in.
function E:bind(name, text)
  for i = #self.memo, 1, -1 do
    if self.memo[i][text] then return self.memo[i][text] end
  end
  self:line("const double " .. name .. " = " .. text .. ";")
  self.memo[#self.memo][text] = name
  return name
end

function E:ref(id)
  local v = self.vals[id]
  if v.op == "const" then return num(tonumber(v.v), v.ty) end
  if v.op == "in" or v.op == "old" then return v.scalar and v.name or (v.name .. "[" .. v.index .. "]") end
  return self.pfx .. "v" .. id
end

function E:dget(id, j)
  local v = self.vals[id]
  if v.op == "in" or (v.op == "old" and v.preload) then
    return (self.act.col_of[v.preload or v.name][v.index] == j) and { c = 1 } or nil
  end
  return self.dref[id] and self.dref[id][j]
end

local function dtext(d)
  if not d then return "0.0" end
  return d.t or num(d.c, "double")
end

function E:ctype(id) return self.vals[id].ty == "int" and "int" or "double" end

function E:primal_text(v)
  local a = v.args
  if BIN[v.op] then return self:ref(a[1]) .. " " .. BIN[v.op] .. " " .. self:ref(a[2]) end
  if v.op == "neg" then return "-" .. self:ref(a[1]) end
  if v.op == "not" then return "!" .. self:ref(a[1]) end
  if v.op == "cvt" then return "(" .. v.ty .. ")" .. self:ref(a[1]) end
  if v.op == "call" then
    local t = {}
    for k, x in ipairs(a) do t[k] = self:ref(x) end
    return v.fn .. "(" .. table.concat(t, ", ") .. ")"
  end
  error("cdiff: no primal text for " .. v.op)
end

-- fmin/fmax: the derivative of the argument chosen.
function E:select_derivs(v, f, js)
  local id, A = v.id, {}
  for k, x in ipairs(v.args) do A[k] = self:ref(x) end
  local sel = self.pfx .. "s" .. id
  self:line("const int " .. sel .. " = " .. f.select(A) .. ";")
  for _, j in ipairs(js) do
    self.dref[id][j] = { t = self:bind(self.pfx .. "d" .. id .. "_" .. j, sel .. " ? "
      .. dtext(self:dget(v.args[2], j)) .. " : " .. dtext(self:dget(v.args[1], j))) }
  end
end

-- The partial of v with respect to argument k: a number or a C text (a
-- temporary when it is an expression), computed once.
function E:partial(v, ps, cache, k)
  if cache[k] ~= nil then return cache[k] end
  local p = ps[k]
  if type(p) == "string" then
    local t = p:gsub("\1(%w+)\2", function(w)
      return self:ref(w == "r" and v.id or v.args[tonumber(w)])
    end)
    if is_number(t) then p = tonumber((t:gsub("[()]", "")))
    elseif is_simple(t) then p = t
    else p = self:bind(self.pfx .. "p" .. v.id .. "_" .. k, t) end
  end
  cache[k] = p
  return p
end

-- d v / d column j = sum over the arguments of partial * their derivative.
function E:chain_derivs(v, js)
  local ps, cache = partials(v), {}
  for _, j in ipairs(js) do
    local c, texts, compound = 0, {}, false
    for k, a in ipairs(v.args) do
      local d = ps[k] ~= nil and self:dget(a, j)
      if d then
        local tm = term(self:partial(v, ps, cache, k), d)
        if tm.c then c = c + tm.c
        else
          texts[#texts + 1] = tm.t
          compound = compound or tm.compound
        end
      end
    end
    if #texts == 0 then
      self.dref[v.id][j] = { c = c }
    elseif #texts == 1 and c == 0 and not compound then
      self.dref[v.id][j] = { t = texts[1] } -- the same as an argument's
    else
      if c ~= 0 then texts[#texts + 1] = num(c, "double") end
      self.dref[v.id][j] = { t = self:bind(self.pfx .. "d" .. v.id .. "_" .. j, table.concat(texts, " + ")) }
    end
  end
end

function E:def(id)
  local v = self.vals[id]
  if v.op == "const" or v.op == "in" or v.op == "old" then return end
  if self.P[id] then
    self:line("const " .. self:ctype(id) .. " " .. self:ref(id) .. " = " .. self:primal_text(v) .. ";")
  end
  local js = sorted(self.D[id] or {})
  if #js == 0 then return end
  self.dref[id] = {}
  local f = v.op == "call" and mathfns[v.fn]
  if f and f.select then self:select_derivs(v, f, js) else self:chain_derivs(v, js) end
end

-- The variables of an if's phis, declared before it.
function E:phi_decls(s)
  for _, ph in ipairs(s.phis) do
    if self.P[ph] then self:line(self:ctype(ph) .. " " .. self:ref(ph) .. ";") end
    self.dref[ph] = {}
    for _, j in ipairs(sorted(self.D[ph] or {})) do
      local name = self.pfx .. "d" .. ph .. "_" .. j
      self:line("double " .. name .. ";")
      self.dref[ph][j] = { t = name }
    end
  end
end

function E:phi_side(s, side)
  for _, ph in ipairs(s.phis) do
    local a = self.vals[ph].args[side]
    if self.P[ph] then self:line(self:ref(ph) .. " = " .. self:ref(a) .. ";") end
    for _, j in ipairs(sorted(self.D[ph] or {})) do
      self:line(self.pfx .. "d" .. ph .. "_" .. j .. " = " .. dtext(self:dget(a, j)) .. ";")
    end
  end
end

function E:block(list)
  for _, s in ipairs(list) do
    if s.k == "def" then self:def(s.id)
    elseif s.live then
      self:phi_decls(s)
      self:line("if (" .. self:ref(s.c) .. ") {")
      for side, branch in ipairs({ s.then_, s.else_ }) do
        if side == 2 then self:line("} else {") end
        self.depth, self.memo[#self.memo + 1] = self.depth + 1, {}
        self:block(branch)
        self:phi_side(s, side)
        self.depth, self.memo[#self.memo] = self.depth - 1, nil
      end
      self:line("}")
    end
  end
end

-- What the caller asks for: the outputs written (P) and the Jacobian
-- entries (D), in pattern order.
local function roots(prog, act, opts, P, D)
  local writes, pattern, entries = {}, {}, {}
  for _, row in ipairs(act.rows) do
    if row.id ~= prog.old[row.out][row.index] and opts.outputs ~= false then
      P[row.id] = true
      writes[#writes + 1] = row
    end
    for _, j in ipairs(row.deps) do
      local c = act.cols[j]
      if not opts.inputs or opts.inputs[c.name] then
        D[row.id] = D[row.id] or {}
        D[row.id][j] = true
        pattern[#pattern + 1] = { out = row.out, out_index = row.index, input = c.name, in_index = c.index }
        entries[#entries + 1] = { id = row.id, j = j }
      end
    end
  end
  return writes, pattern, entries
end

function M.generate(prog, act, opts)
  opts = opts or {}
  local P, D = {}, {}
  local writes, pattern, entries = roots(prog, act, opts, P, D)
  liveness(prog, act, P, D)
  local e = setmetatable({ vals = prog.vals, act = act, P = P, D = D, pfx = opts.prefix or pick_prefix(prog.iface),
    lines = {}, depth = 0, memo = { {} }, dref = {} }, E)
  e:block(prog.body)
  for _, row in ipairs(writes) do
    local v = prog.vals[prog.old[row.out][row.index]]
    e:line((v.scalar and row.out or (row.out .. "[" .. row.index .. "]")) .. " = " .. e:ref(row.id) .. ";")
  end
  for k, en in ipairs(entries) do
    e:line((opts.jac or "jac") .. "[" .. (k - 1) .. "] = " .. dtext(e:dget(en.id, en.j)) .. ";")
  end
  return { code = table.concat(e.lines, "\n") .. (#e.lines > 0 and "\n" or ""), pattern = pattern }
end

return M
