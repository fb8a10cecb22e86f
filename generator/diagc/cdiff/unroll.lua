-- cdiff/unroll.lua: a parsed calc body -> straight-line SSA code.
-- Takes the body's tree (cdiff/parse.lua), the preamble (cdiff/preamble.lua)
-- and the calc's interface; adds a program in which every integer local
-- and loop counter is folded away (for loops with constant bounds are
-- unrolled), helper calls are inlined, every array element is a scalar
-- and every array index is a constant.  Branches on run-time values stay
-- (as `if` statements with phi values at their joins): control flow is
-- differentiated along the branch taken.  Fails as parse does: nil,
-- {line=, col=, construct=, message=[, source="preamble"]}.
--
-- Interface: {inputs = {{name=, size=n|nil (nil: a scalar), ty="double"|"int",
--   active=bool (default true), hidden=bool (a column of the Jacobian the
--   body cannot name)}, ...}, outputs = {{name=, size=n|nil, preload=input
--   name|nil}, ...}}.  An output with preload = "x" starts as a copy of
--   input x (an update's x_next, preloaded with x): an element the body
--   does not write keeps x's value, and its derivative.
--
-- Program: {vals = {[id] = val}, body = {stmt, ...}, final = {[out] = {[i] = id}},
--   old = {[out] = {[i] = id}}, out_reads = {{name=, index=, line=, col=}},
--   bad_writes = {{name=, line=, col=}}, iface = interface}
--   val: {id=, ty="double"|"int", op=, args={id, ...}, line=, col=} with op
--     "const" (v=), "in" (name=, index=, scalar=), "old" (the value an output
--     element had before the calc: name=, index=, preload=), "neg" "not" "add" "sub"
--     "mul" "div" "mod" "lt" "gt" "le" "ge" "eq" "ne", "cvt" (to ty),
--     "call" (fn=), "phi" (args = {then, else})
--   stmt: {k="def", id=} | {k="if", c=id, then_={...}, else_={...},
--     phis={id, ...}, line=, col=}
--   final[out][i] is the element's value at the end (old[out][i] if the
--   body never writes it; indexes are 0-based).
local parse = require("diagc.cdiff.parse")
local mathlib = require("diagc.cdiff.mathfns")
local mathfns, MCONST = mathlib.fns, mathlib.CONSTANTS

local problem = parse.problem

local M = {}

local MAX_STEPS = 200000 -- statements executed while unrolling
local UNDEF, MAYBE = "undef", "maybe"

local S = {}
S.__index = S

local fold = require("diagc.cdiff.fold")
local inline = require("diagc.cdiff.inline")
for name, fn in pairs(fold.methods) do S[name] = fn end
for name, fn in pairs(inline.methods) do S[name] = fn end
local ARITH, CMP = fold.ARITH, fold.CMP
local has_return, count = inline.has_return, inline.count

-- Expressions ----------------------------------------------------------

function S:lookup(name)
  local sc = self.scope
  while sc do
    local b = sc.names[name]
    if b then return b end
    sc = sc.parent
  end
end

function S:binding(e)
  local b = self:lookup(e.name)
  if b then return b end
  if mathfns[e.name] then
    problem(e, "a math function used as a value", "'" .. e.name .. "' is a function, used as a value")
  end
  if self.pre.broken[e.name] then
    -- reported where the preamble leaves the subset, with the body's call site
    local p = self.pre.broken[e.name]
    parse.raise({ line = p.line, col = p.col, construct = p.construct, message = p.message,
      source = "preamble", preamble = p.preamble, helper = e.name,
      call_line = self.depth == 0 and e.line or nil,
      call_col = self.depth == 0 and e.col or nil })
  end
  problem(e, "an unknown name", "'" .. e.name .. "' is not a local variable, a value this calc "
    .. "receives or a constant of the c_preamble")
end

-- The constant int value of an index expression ie of array `name`.
function S:const_index(ie, name)
  local id = self:expr(ie)
  if self:ty(id) ~= "int" then problem(ie, "a non-integer array index", "an array index that is not an int") end
  local c = self:cval(id)
  if not c then
    problem(ie, "a non-constant array index", "the index of '" .. name .. "' is not a compile-time "
      .. "constant (it depends on a run-time value)")
  end
  return c
end


-- The element a pointer with an offset (cdiff/inline.lua's aliases) reaches:
-- offset + index, within the whole underlying array.
function S:alias_element(b, e)
  if #e.idx ~= 1 then
    problem(e, "a partial array index", string.format("the pointer '%s' is indexed with %d indexes "
      .. "(a pointer takes one)", e.name, #e.idx))
  end
  local c = self:const_index(e.idx[1], e.name)
  local flat, n = b.offset + c, count(b.target)
  if flat < 0 or flat >= n then
    problem(e.idx[1], "an index out of bounds", string.format("index %d of '%s' (offset %d into '%s', "
      .. "size %d) is out of bounds", c, e.name, b.offset, b.target.name, n))
  end
  return flat
end

-- The flat element of an array binding at constant indexes.
function S:element(b, e)
  if b.kind == "ptr" then
    if b.offset then return self:alias_element(b, e) end
    return self:element(b.target, e)
  end
  local dims = b.dims or { b.size }
  if not b.size and not b.dims then
    problem(e, "indexing a scalar", "'" .. e.name .. "' is a scalar, not an array")
  end
  if #e.idx ~= #dims then
    problem(e, "a partial array index", string.format("'%s' has %d dimension(s), indexed with %d",
      e.name, #dims, #e.idx))
  end
  local flat = 0
  for k, ie in ipairs(e.idx) do
    local c = self:const_index(ie, e.name)
    if c < 0 or c >= dims[k] then
      problem(ie, "an index out of bounds", string.format("index %d is out of bounds of '%s' (size %d)",
        c, e.name, dims[k]))
    end
    flat = flat * dims[k] + c
  end
  return flat
end

function S:read_slot(key, name, at)
  local v = self.env[key]
  if v == UNDEF then
    problem(at, "a read of an uninitialized variable", "'" .. name .. "' is read before it is assigned")
  end
  if v == MAYBE then
    problem(at, "a read of an uninitialized variable", "'" .. name .. "' may be read before it is "
      .. "assigned (it is assigned on some paths only)")
  end
  return v
end

function S:read(b, e, flat)
  if b.kind == "ptr" then return self:read(b.target, e, flat) end
  if b.kind == "input" then
    return self:val("in", b.ty, {}, { name = b.name, index = flat, scalar = not b.size })
  end
  if b.kind == "const" then return b.id end
  local key = b.key .. ":" .. flat
  if b.kind == "output" and self.env[key] == self.old[b.name][flat] then
    self.out_reads[#self.out_reads + 1] = { name = b.name, index = flat, line = e.line, col = e.col }
  end
  return self:read_slot(key, e.name, e)
end

function S:expr(e)
  self.at = e
  local k = e.k
  if k == "num" then return self:const(e.v, e.ty) end
  if k == "name" then
    local b = self:lookup(e.name)
    if not b and MCONST[e.name] then return self:const(MCONST[e.name], "double") end
    b = b or self:binding(e)
    if b.size or b.dims or b.kind == "ptr" then
      problem(e, "an array used as a value", "the array '" .. e.name .. "' is used as a value (index it)")
    end
    return self:read(b, e, 0)
  end
  if k == "index" then
    local b = self:binding(e)
    return self:read(b, e, self:element(b, e))
  end
  if k == "unop" then
    local a = self:expr(e.a)
    if e.op == "+" then return a end
    if e.op == "!" then
      local c = self:cval(a)
      if c then return self:const(c == 0 and 1 or 0, "int") end
      return self:val("not", "int", { a }, nil, e)
    end
    local c = self:cval(a)
    if c then return self:const(-c, self:ty(a)) end
    return self:val("neg", self:ty(a), { a }, nil, e)
  end
  if k == "binop" then
    if e.op == "&&" or e.op == "||" then return self:logical(e) end
    local a, b = self:expr(e.a), self:expr(e.b)
    if ARITH[e.op] then return self:arith(ARITH[e.op], a, b, e) end
    return self:compare(CMP[e.op], a, b, e)
  end
  if k == "cond" then return self:ternary(e) end
  if k == "cast" then return self:convert(self:expr(e.a), e.ty, e) end
  if k == "call" then
    local id = self:call(e)
    if not id then problem(e, "a void call used as a value", "'" .. e.name .. "' returns nothing") end
    return id
  end
  problem(e, "an expression", "unsupported expression")
end

-- Runs then_fn and else_fn as the two sides of a run-time branch on c
-- and joins the environment (and, when given, their results) with phis.
function S:branch(c, then_fn, else_fn, at)
  local snap = {}
  for key, v in pairs(self.env) do snap[key] = v end
  local stmt = { k = "if", c = c, then_ = {}, else_ = {}, phis = {}, line = at.line, col = at.col }
  local outer = self.block
  local function side(list, fn)
    self.block = list
    self.cse[#self.cse + 1] = {}
    local r = fn()
    self.cse[#self.cse] = nil
    -- the environment table keeps its identity (callers may hold it)
    local env = {}
    for key, v in pairs(self.env) do env[key] = v end
    for key in pairs(env) do self.env[key] = nil end
    for key, v in pairs(snap) do self.env[key] = v end
    return r, env
  end
  local ra, env_a = side(stmt.then_, then_fn)
  local rb, env_b = side(stmt.else_, else_fn)
  self.block = outer
  self:emit(stmt)
  local function join(a, b)
    if a == b then return a end
    if a == UNDEF or b == UNDEF or a == MAYBE or b == MAYBE then return MAYBE end
    if type(a) == "boolean" or type(b) == "boolean" then return a and b end
    local ty = (self:ty(a) == "double" or self:ty(b) == "double") and "double" or "int"
    if self:ty(a) ~= ty or self:ty(b) ~= ty then
      error("cdiff: phi of mixed types") -- locals keep their declared type
    end
    local id = self:val("phi", ty, { a, b }, nil, at)
    stmt.phis[#stmt.phis + 1] = id
    return id
  end
  local keys = {}
  for key in pairs(env_a) do if snap[key] ~= nil or self.fn_keys[key] then keys[#keys + 1] = key end end
  for key in pairs(env_b) do
    if env_a[key] == nil and (snap[key] ~= nil or self.fn_keys[key]) then keys[#keys + 1] = key end
  end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local a, b = env_a[key], env_b[key]
    if a == nil then a = UNDEF end
    if b == nil then b = UNDEF end
    self.env[key] = join(a, b)
  end
  if ra ~= nil then return join(ra, rb) end
end

function S:ternary(e)
  local c = self:expr(e.c)
  local cc = self:cval(c)
  if cc then return self:expr(cc ~= 0 and e.a or e.b) end
  -- both sides take the common type, found without evaluating them
  local ta, tb = self:type_of(e.a), self:type_of(e.b)
  local ty = (ta == "double" or tb == "double") and "double" or "int"
  return (self:branch(c, function() return self:convert(self:expr(e.a), ty, e) end,
    function() return self:convert(self:expr(e.b), ty, e) end, e))
end

-- The type of an expression (C's rules), without evaluating it.
function S:type_of(e)
  local k = e.k
  if k == "num" then return e.ty end
  if k == "cast" then return e.ty end
  if k == "unop" then return e.op == "!" and "int" or self:type_of(e.a) end
  if k == "binop" then
    if ARITH[e.op] then
      return (self:type_of(e.a) == "double" or self:type_of(e.b) == "double") and "double" or "int"
    end
    return "int"
  end
  if k == "cond" then
    return (self:type_of(e.a) == "double" or self:type_of(e.b) == "double") and "double" or "int"
  end
  if k == "call" then
    if mathfns[e.name] then return "double" end
    local h = self.pre.helpers[e.name]
    return h and h.ret or "double"
  end
  local b = self:lookup(e.name)
  if not b and MCONST[e.name] then return "double" end
  if b and b.kind == "ptr" then b = b.target end
  if b and b.kind == "const" then return self:ty(b.id) end
  return b and b.ty or "double"
end

function S:logical(e)
  local a = self:truth(self:expr(e.a), e)
  local ca = self:cval(a)
  local is_and = e.op == "&&"
  if ca then
    if (ca ~= 0) ~= is_and then return self:const(is_and and 0 or 1, "int") end
    return self:truth(self:expr(e.b), e)
  end
  local function rhs() return self:truth(self:expr(e.b), e) end
  local function fixed() return self:const(is_and and 0 or 1, "int") end
  local r
  if is_and then r = self:branch(a, rhs, fixed, e) else r = self:branch(a, fixed, rhs, e) end
  if self.vals[r].op == "phi" then self.vals[r].bool = true end
  return r
end

-- Statements -----------------------------------------------------------

function S:new_key()
  self.nkeys = self.nkeys + 1
  return "L" .. self.nkeys
end

function S:step(s)
  self.steps = self.steps + 1
  if self.steps > MAX_STEPS then
    problem(s, "a body too large to unroll", "the body unrolls to more than " .. MAX_STEPS
      .. " statements (loops and helper calls included)")
  end
end

function S:const_int(e, what)
  local id = self:expr(e)
  local c = self:cval(id)
  if not c or self:ty(id) ~= "int" then
    problem(e, "a non-constant array size", what .. " must be a constant int expression")
  end
  return c
end

-- Flattens an initializer against dims into {[flat] = expr}.
local function flatten_init(init, dims, level, base, out, p)
  local stride = 1
  for k = level + 1, #dims do stride = stride * dims[k] end
  if init.k ~= "init" then
    problem(init, "a scalar initializer for an array", "an array needs a braced initializer")
  end
  if #init.items > dims[level] then problem(init, "too many initializers") end
  for i, item in ipairs(init.items) do
    local at = base + (i - 1) * stride
    if level < #dims and item.k == "init" then
      flatten_init(item, dims, level + 1, at, out, p)
    elseif level < #dims then
      problem(item, "an initializer without inner braces", "a nested array needs inner braces")
    else
      if item.k == "init" then problem(item, "braces around a scalar initializer") end
      out[at] = item
    end
  end
end

-- `[const] T *name = a [+ k];`: name aliases the array a at offset k.
function S:declare_pointer(d)
  if d.init.k == "init" then
    problem(d.init, "a braced initializer for a pointer", "the pointer '" .. d.name .. "' must be "
      .. "initialized with an array [+ constant]")
  end
  local b = self:alias(d.init, "the initializer of '" .. d.name .. "'")
  if (b.target.ty or "double") ~= d.ty then
    problem(d.init, "a pointer to an array of another type", string.format("'%s' is a %s pointer to "
      .. "'%s', an array of %s", d.name, d.ty, b.target.name, b.target.ty or "double"))
  end
  local t = b.target
  if not d.const and (b.const_ptr or t.kind == "input" or t.const) then
    problem(d, "a non-const pointer to read-only data", "'" .. d.name .. "' points into '" .. t.name
      .. "', which is read-only: declare it `const " .. d.ty .. " *`")
  end
  b.offset = b.offset or 0
  b.const_ptr = d.const or nil
  b.ty, b.name = d.ty, d.name
  self.scope.names[d.name] = b
end

function S:declare(d)
  if d.ty ~= "double" and d.ty ~= "int" then problem(d, "a declaration of type " .. d.ty) end
  if d.ptr then return self:declare_pointer(d) end
  local key = self:new_key()
  local b = { kind = "local", key = key, ty = d.ty, name = d.name, const = d.const }
  if #d.dims > 0 then
    local dims, n = {}, 1
    for k, de in ipairs(d.dims) do
      if de then
        dims[k] = self:const_int(de, "the size of '" .. d.name .. "'")
      elseif k == 1 and d.init and d.init.k == "init" then
        dims[k] = #d.init.items
      else
        problem(d.unsized_at or d, "an array of unknown size")
      end
      if dims[k] <= 0 then problem(de or d, "an array of size zero or less") end
      n = n * dims[k]
    end
    if n > 100000 then problem(d, "an array too large to unroll") end
    b.dims, b.count = dims, n
    local items = {}
    if d.init then flatten_init(d.init, dims, 1, 0, items, self) end
    local zero = d.init and self:const(0, d.ty)
    for i = 0, n - 1 do
      self.env[key .. ":" .. i] = items[i] and self:convert(self:expr(items[i]), d.ty, items[i]) or zero or UNDEF
    end
  else
    if d.init and d.init.k == "init" then problem(d.init, "a braced initializer for a scalar") end
    self.env[key .. ":0"] = d.init and self:convert(self:expr(d.init), d.ty, d.init) or UNDEF
  end
  self.scope.names[d.name] = b
end

function S:assign(s)
  local t = s.target
  local b = self:lookup(t.name)
  if b and b.kind == "ptr" and t.k ~= "index" then
    problem(t, "an assignment to a pointer", "'" .. t.name .. "' is a pointer (pointers of the subset "
      .. "keep the array they are declared with)")
  end
  local target = b and b.kind == "ptr" and b.target or b
  if not b or target.kind == "input" or target.kind == "const" or b.const_ptr then
    -- a write finding (cdiff/writes.lua): skipped here, the value still read
    self.bad_writes[#self.bad_writes + 1] = { name = t.name, line = t.line, col = t.col,
      known = b ~= nil }
    self:expr(s.value)
    return
  end
  if target.const then problem(t, "an assignment to a const", "'" .. t.name .. "' is const") end
  local flat = 0
  if t.k == "index" then flat = self:element(b, t)
  elseif target.dims or target.size then
    problem(t, "an assignment to a whole array", "'" .. t.name .. "' is an array; assign its elements")
  end
  local key = target.key .. ":" .. flat
  local value = self:expr(s.value)
  if s.op ~= "=" then
    local cur = self:read(target, t, flat)
    local op = s.op:sub(1, 1)
    value = self:arith(ARITH[op], cur, value, s)
  end
  self.env[key] = self:convert(value, target.ty, s)
end

function S:with_scope(fn)
  local saved = self.scope
  self.scope = { parent = saved, names = {} }
  fn()
  self.scope = saved
end

function S:exec_if(s, cont)
  local c = self:expr(s.c)
  local cc = self:cval(c)
  local function run(branch)
    return function()
      self:with_scope(function()
        self:exec_list(branch and branch.body or {}, 1, cont)
      end)
    end
  end
  if cc then return run(cc ~= 0 and s.then_ or s.else_)() end
  self:branch(c, run(s.then_), run(s.else_), s)
end

function S:exec_for(s)
  if has_return(s.body) then problem(s, "return inside a loop") end
  self:with_scope(function()
    if s.init then self:exec_stmt(s.init) end
    if not s.cond then problem(s, "a for loop without a condition") end
    while true do
      local c = self:expr(s.cond)
      local cc = self:cval(c)
      if not cc then
        problem(s.cond_at, "a for loop with a non-constant bound", "the condition of this for loop is not a "
          .. "compile-time constant (loop bounds must be constant so the loop can be unrolled)")
      end
      if cc == 0 then break end
      self:step(s)
      self:with_scope(function() self:exec_list(s.body.body, 1, nil) end)
      if s.step then self:exec_stmt(s.step) end
    end
  end)
end

function S:exec_stmt(s)
  self:step(s)
  self.at = s
  local k = s.k
  if k == "decl" then return self:declare(s) end
  if k == "assign" then return self:assign(s) end
  if k == "block" then return self:with_scope(function() self:exec_list(s.body, 1, nil) end) end
  if k == "if" then return self:exec_if(s, nil) end
  if k == "for" then return self:exec_for(s) end
  if k == "call" then self:call(s.e); return end
  if k == "void" then
    -- (void)name; marks a value unused (arrays included)
    if not (s.e.k == "name" and self:lookup(s.e.name)) then self:expr(s.e) end
    return
  end
  if k == "return" then
    local h = self.fn.helper
    if h.ret == "void" then
      if s.e then problem(s, "a void helper returning a value") end
    else
      if not s.e then problem(s, "a return without a value") end
      self.env[self.fn.ret] = self:convert(self:expr(s.e), h.ret, s.e)
    end
    self.env[self.fn.done] = true
    return
  end
  problem(s, "a statement", "unsupported statement")
end

-- Runs list[i..] and then cont (the rest of the enclosing statements of a
-- helper, run inside a branch that did not return).
function S:exec_list(list, i, cont)
  for j = i, #list do
    if self.fn and self.env[self.fn.done] then return end
    local s = list[j]
    if self.fn and (s.k == "if" or s.k == "block") and has_return(s) then
      local scope = self.scope
      local rest = function()
        local inner = self.scope
        self.scope = scope
        self:exec_list(list, j + 1, cont)
        self.scope = inner
      end
      if s.k == "if" then self:exec_if(s, rest)
      else self:with_scope(function() self:exec_list(s.body, 1, rest) end) end
      return
    end
    self:exec_stmt(s)
  end
  if cont and not (self.fn and self.env[self.fn.done]) then cont() end
end

-- Entry ----------------------------------------------------------------

-- Names the generated derivative code calls besides the math functions.
local EMITTED = { trunc = true, isnan = true, signbit = true, HUGE_VAL = true, NAN = true }

local function globals(st, iface, pre)
  local names = {}
  st.iface_all = {}
  for _, list in ipairs({ iface.inputs, iface.outputs }) do
    for _, x in ipairs(list) do
      if mathfns[x.name] or EMITTED[x.name] then
        problem({ line = 1, col = 1 }, "a value named like a math function", "the calc's value '" .. x.name
          .. "' has the name of a <math.h> function or macro, which its derivative code calls; rename it")
      end
    end
  end
  for _, x in ipairs(iface.inputs) do
    if not x.hidden then
      names[x.name] = { kind = "input", name = x.name, size = x.size, ty = x.ty or "double" }
      st.iface_all[x.name] = true
    end
  end
  for _, x in ipairs(iface.outputs) do
    local key = "O:" .. x.name
    names[x.name] = { kind = "output", key = key, name = x.name, size = x.size, ty = "double" }
    st.iface_all[x.name] = true
    st.old[x.name], st.final[x.name] = {}, {}
    for i = 0, (x.size or 1) - 1 do
      local id = st:val("old", "double", {}, { name = x.name, index = i, scalar = not x.size,
        preload = x.preload })
      st.old[x.name][i] = id
      st.env[key .. ":" .. i] = id
    end
  end
  st.globals = { names = {} }
  -- preamble constants: evaluated lazily, visible to the body and to helpers
  for name, c in pairs(pre.consts) do
    st.globals.names[name] = setmetatable({ kind = "const" }, { __index = function(b, f)
      if f ~= "id" then return nil end
      local saved = st.scope
      st.scope = { parent = st.globals, names = {} }
      local ok, id = pcall(st.expr, st, c.e)
      st.scope = saved
      if not ok or not st:cval(id) then
        problem(c, "a preamble constant that is not constant", "'" .. name .. "' (c_preamble "
          .. c.line .. ":" .. c.col .. ") is not a constant expression")
      end
      if c.ty then id = st:convert(id, c.ty, c) end
      rawset(b, "id", id)
      return id
    end })
  end
  return { parent = st.globals, names = names }
end

-- body: a tree from parse.body; pre: cdiff/preamble.lua's result (or nil).
function M.unroll(body, iface, pre)
  pre = pre or { helpers = {}, consts = {}, broken = {}, order = {} }
  return parse.catch(function()
    local st = setmetatable({ vals = {}, cse = { {} }, env = {}, old = {}, final = {}, out_reads = {},
      bad_writes = {}, nkeys = 0, steps = 0, depth = 0, fn_keys = {}, pre = pre }, S)
    st.body = {}
    st.block = st.body
    st.scope = { parent = globals(st, iface, pre), names = {} }
    st:exec_list(body.body, 1, nil)
    for _, x in ipairs(iface.outputs) do
      for i = 0, (x.size or 1) - 1 do
        local v = st.env["O:" .. x.name .. ":" .. i]
        st.final[x.name][i] = v
      end
    end
    return { vals = st.vals, body = st.body, final = st.final, old = st.old, out_reads = st.out_reads,
      bad_writes = st.bad_writes, iface = iface }
  end)
end

return M
