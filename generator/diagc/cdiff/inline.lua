-- cdiff/inline.lua: calls in an unrolled calc (methods of
-- cdiff/unroll.lua's state).  A <math.h> call becomes a value; a call of
-- a preamble helper is inlined: its scalar parameters become locals
-- holding the converted arguments, its array parameters names for the
-- arrays passed, or for `array + constant` (writes through them land in
-- those arrays; S:alias also resolves pointer declarations), and its body
-- runs in a scope that sees only its parameters and the preamble's
-- constants.  A `return` ends its path: the statements after an if that
-- returns on one side run on the other side only, so the result is a phi
-- of the values returned.  A problem inside a helper is reported where
-- the preamble has it (source = "preamble"), with the body's call site.
local parse = require("diagc.cdiff.parse")
local mathfns = require("diagc.cdiff.mathfns").fns

local problem = parse.problem

local M = {}
local S = {}
M.methods = S

function S:call(e)
  local f = mathfns[e.name]
  if f then
    if #e.args ~= f.n then
      problem(e, "a call with the wrong number of arguments", string.format("%s takes %d argument(s), "
        .. "called with %d", e.name, f.n, #e.args))
    end
    local args = {}
    for i, a in ipairs(e.args) do args[i] = self:convert(self:expr(a), "double", a) end
    return self:val("call", "double", args, e.name, e)
  end
  local h = self.pre.helpers[e.name]
  if not h then
    if self.pre.broken[e.name] then self:binding({ name = e.name, line = e.line, col = e.col }) end
    problem(e, "a call of an unknown function", "a call of '" .. e.name .. "', which is neither a "
      .. "<math.h> function of the subset nor a static helper of the c_preamble")
  end
  return self:inline(h, e)
end

-- The number of elements of an array binding (nil: a scalar).
function M.count(b)
  if b.count then return b.count end
  if b.dims then
    local n = 1
    for _, d in ipairs(b.dims) do n = n * d end
    return n
  end
  return b.size
end

-- The array an expression points into: `a` (an array, or a pointer alias)
-- or `a + k` with k a constant int expression (k >= 0, a + k within a or
-- one past its end).  Returns a new binding {kind = "ptr", target = the
-- underlying array, offset = the element a + k starts at (nil for a bare
-- array name: indexed with the array's own dimensions), const_ptr =}.
function S:alias(a, what)
  if a.k == "binop" and a.op == "+" then
    local b = self:alias(a.a, what)
    local id = self:expr(a.b)
    local c = self:cval(id)
    if not c or self:ty(id) ~= "int" then
      problem(a.b, "a non-constant pointer offset", what .. ": the offset added to an array must be a "
        .. "constant int expression")
    end
    local off = (b.offset or 0) + c
    if off < 0 or off > M.count(b.target) then
      problem(a, "a pointer out of bounds", string.format("%s: offset %d is outside '%s' (size %d)", what,
        off, b.target.name, M.count(b.target)))
    end
    b.offset = off
    return b
  end
  if a.k ~= "name" then
    problem(a, "a pointer argument that is not an array name", what .. " must be the name of an array "
      .. "or an array plus a constant int")
  end
  local b = self:lookup(a.name) or self:binding(a)
  if b.kind == "ptr" then
    return { kind = "ptr", target = b.target, offset = b.offset, const_ptr = b.const_ptr }
  end
  if not (b.size or b.dims) then
    problem(a, "a scalar passed as an array", "'" .. a.name .. "' is not an array")
  end
  return { kind = "ptr", target = b }
end

-- Whether a statement (tree) contains a return.
function M.has_return(s)
  if type(s) ~= "table" then return false end
  if s.k == "return" then return true end
  if s.k == "block" then
    for _, x in ipairs(s.body) do if M.has_return(x) then return true end end
  elseif s.k == "if" then
    return M.has_return(s.then_) or M.has_return(s.else_)
  elseif s.k == "for" then
    return M.has_return(s.body)
  end
  return false
end

function S:inline(h, e)
  if #e.args ~= #h.params then
    problem(e, "a call with the wrong number of arguments", string.format("%s takes %d argument(s), "
      .. "called with %d", h.name, #h.params, #e.args))
  end
  self.depth = self.depth + 1
  if self.depth > 64 then problem(e, "helpers nested too deeply") end
  local names = {}
  local inits = {}
  for i, p in ipairs(h.params) do
    local a = e.args[i]
    if p.array then
      local b = self:alias(a, "argument " .. i .. " of '" .. h.name .. "'")
      b.const_ptr = (p.const or b.const_ptr) or nil
      names[p.name] = b
    else
      inits[#inits + 1] = { p = p, id = self:convert(self:expr(a), p.ty, a) }
    end
  end
  local saved_scope, saved_ctx = self.scope, self.fn
  self.scope = { parent = self.globals, names = names }
  for _, it in ipairs(inits) do
    local key = self:new_key()
    names[it.p.name] = { kind = "local", key = key, ty = it.p.ty, name = it.p.name }
    self.env[key .. ":0"] = it.id
  end
  local n = self:new_key()
  local ctx = { ret = n .. ":ret", done = n .. ":done", helper = h }
  self.fn_keys[ctx.ret], self.fn_keys[ctx.done] = true, true
  self.fn = ctx
  self.env[ctx.done] = false
  local ok, err = pcall(function()
    self:exec_list(h.body.body, 1, nil)
    if h.ret ~= "void" and not self.env[ctx.done] then
      problem(h, "a helper that can end without return", "the helper '" .. h.name
        .. "' can reach its end without returning a value")
    end
  end)
  if not ok then
    self.depth = self.depth - 1
    if type(err) == "table" and not err.source then
      err.source, err.helper, err.preamble = "preamble", h.name, h.preamble
    end
    if type(err) == "table" and self.depth == 0 and not err.call_line then
      err.call_line, err.call_col = e.line, e.col
    end
    error(err, 0)
  end
  local r = self.env[ctx.ret]
  self.env[ctx.ret], self.env[ctx.done] = nil, nil
  self.fn_keys[ctx.ret], self.fn_keys[ctx.done] = nil, nil
  self.scope, self.fn = saved_scope, saved_ctx
  self.depth = self.depth - 1
  if h.ret == "void" then return nil end
  return r
end

return M
