-- cdiff/parse.lua: the differentiable C subset, parsed.
-- Takes the host C lexer's tokens ({kind=, text=, line=, col=} ...) of a
-- calc body (parse.body; the helpers of a c_preamble: cdiff/preamble.lua);
-- adds a syntax tree.  Anything outside the subset is not raised: the functions
-- return nil, problem with problem = {line=, col=, construct=, message=}
-- (line/col relative to the text lexed), and the caller decides whether
-- it matters (it does only when a Jacobian of the calc is needed).
--
-- The subset: declarations of double/int scalars and constant-size
-- arrays (optionally const, with initializers), pointers aliasing an
-- array at a constant offset (`const double *r = a + 3;`; an array
-- argument of a helper may be `a + k` too), = and compound
-- assignments, x++/x--/++x/--x as statements, + - * / %, comparisons,
-- ! && ||, ?:, casts (double)/(int), if/else, for loops, blocks, calls of
-- the <math.h> functions of cdiff/mathfns.lua and of preamble helpers,
-- (void)expr; and, in helpers only, return.
--
-- Tree (every node has line= and col= of its first token, binary nodes
-- those of their operator, and depth= (at most 1000); nesting is bounded
-- too, so no input makes a later stage recurse without limit):
--   expressions
--     {k="num", v=number, ty="int"|"double"}
--     {k="name", name=}                           a scalar or a whole array
--     {k="index", name=, idx={expr, ...}}          a[i] or m[i][j]
--     {k="unop", op="-"|"+"|"!", a=}
--     {k="binop", op="+"|"-"|"*"|"/"|"%"|"<"|">"|"<="|">="|"=="|"!="|"&&"|"||", a=, b=}
--     {k="cond", c=, a=, b=}
--     {k="cast", ty="int"|"double", a=}
--     {k="call", name=, args={expr, ...}}
--   statements
--     {k="decl", ty=, const=bool, name=, dims={expr, ...}|{} , init=expr|{list}|nil, ptr=true|nil}
--        (ptr: `[const] T *name = a [+ k];`, a pointer into the array a at the constant int
--        offset k, declared with its initializer; cdiff/unroll.lua checks the initializer)
--        (an array initializer is {k="init", items={expr|init, ...}})
--     {k="assign", op="="|"+="|"-="|"*="|"/="|"%=", target=name|index node, value=expr}
--     {k="if", c=, then_=stmt, else_=stmt|nil}
--     {k="for", init=stmt|nil, cond=expr|nil, cond_at={line=, col=}, step=stmt|nil, body=stmt}
--     {k="block", body={stmt, ...}}
--     {k="call", e=call node}                      a call whose value is unused
--     {k="void", e=expr}                           (void)expr;
--     {k="return", e=expr|nil}

local M = {}

local Problem = {}

local function problem(tk, construct, message)
  error(setmetatable({ line = tk and tk.line or 1, col = tk and tk.col or 1, construct = construct,
    message = message or construct }, Problem), 0)
end
M.problem = problem
-- Raises a problem given whole ({line=, col=, construct=, message=, ...}).
function M.raise(p) error(setmetatable(p, Problem), 0) end

-- Runs fn(...) and turns a raised problem into nil, problem.
local function catch(fn, ...)
  local args = { n = select("#", ...), ... }
  local ok, r = xpcall(function() return fn(unpack(args, 1, args.n)) end, function(e)
    if getmetatable(e) == Problem then return e end
    return debug.traceback(tostring(e), 2)
  end)
  if ok then return r end
  if getmetatable(r) == Problem then return nil, setmetatable(r, nil) end
  error(r, 0)
end
M.catch = catch

-- The constructs the subset leaves out, by the word or operator that starts them.
local KEYWORD_CONSTRUCTS = {
  ["while"] = "a while loop", ["do"] = "a do-while loop", ["switch"] = "a switch statement",
  ["goto"] = "goto", ["break"] = "break", ["continue"] = "continue", ["sizeof"] = "sizeof",
  ["float"] = "a float variable", ["long"] = "a long type", ["short"] = "a short type",
  ["char"] = "a char type", ["unsigned"] = "an unsigned type", ["signed"] = "a signed type",
  ["struct"] = "a struct", ["union"] = "a union", ["enum"] = "an enum", ["typedef"] = "typedef",
  ["static"] = "a static local", ["extern"] = "extern", ["volatile"] = "volatile",
  ["register"] = "register", ["_Bool"] = "a _Bool type", ["case"] = "a case label",
  ["default"] = "a default label", ["size_t"] = "a size_t type", ["void"] = "void",
  ["auto"] = "auto", ["inline"] = "inline", ["restrict"] = "restrict",
}
local OP_CONSTRUCTS = {
  ["&"] = "the & operator (address or bitwise and)", ["|"] = "the bitwise | operator",
  ["^"] = "the bitwise ^ operator", ["~"] = "the bitwise ~ operator",
  ["<<"] = "a shift", [">>"] = "a shift", ["->"] = "member access (->)",
  ["."] = "member access (.)", [","] = "the comma operator",
  ["&="] = "a bitwise compound assignment", ["|="] = "a bitwise compound assignment",
  ["^="] = "a bitwise compound assignment", ["<<="] = "a shift assignment", [">>="] = "a shift assignment",
}
M.KEYWORD_CONSTRUCTS = KEYWORD_CONSTRUCTS

local ASSIGN_OPS = { ["="] = true, ["+="] = true, ["-="] = true, ["*="] = true, ["/="] = true,
  ["%="] = true }

-- C number literal -> value, type ("int" or "double"), or a problem.
local function number(tk)
  local s = tk.text:lower()
  local hex = s:find("^0x") ~= nil
  if (hex and s:find("p")) or (not hex and s:find("[.e]")) then
    local body, suffix = s:match("^(.-)([fl]?)$")
    if suffix == "l" then problem(tk, "a long double literal", "the long double literal '" .. tk.text .. "'") end
    local v = tonumber(body)
    if not v then problem(tk, "a number literal", "the number literal '" .. tk.text .. "'") end
    if suffix == "f" then v = tonumber(require("ffi").new("float", v)) end
    return v, "double"
  end
  local digits, suffix = s:match("^(0x%x+)(%a*)$")
  if not digits then digits, suffix = s:match("^(%d+)(%a*)$") end
  if not digits then problem(tk, "a number literal", "the number literal '" .. tk.text .. "'") end
  if suffix ~= "" then
    problem(tk, "an integer literal with a suffix", "the literal '" .. tk.text .. "' (suffix "
      .. suffix .. "); write a plain int or a double")
  end
  local v
  if hex then v = tonumber(digits:sub(3), 16)
  elseif digits:find("^0%d") then
    if digits:find("[89]") then problem(tk, "a number literal", "bad octal literal '" .. tk.text .. "'") end
    v = tonumber(digits, 8)
  else v = tonumber(digits) end
  if v > 2147483647 then
    problem(tk, "an integer literal too large for int", "the literal '" .. tk.text
      .. "' does not fit an int; write it as a double")
  end
  return v, "int"
end
M.number = number

-- A cursor over a token list.
local P = {}
P.__index = P

local function new(toks, helpers_allowed)
  return setmetatable({ toks = toks, i = 1, in_helper = helpers_allowed }, P)
end

function P:peek(o) return self.toks[self.i + (o or 0)] end
function P:at(text, o)
  local t = self:peek(o)
  return t and t.kind ~= "string" and t.kind ~= "char" and t.text == text
end
function P:next()
  local t = self.toks[self.i]
  if not t then
    local last = self.toks[#self.toks]
    problem(last and { line = last.line, col = last.col + #last.text } or nil, "an incomplete statement",
      "the code ends in the middle of a statement")
  end
  self.i = self.i + 1
  return t
end
function P:expect(text)
  local t = self:peek()
  if not self:at(text) then
    if not t then self:next() end
    self:unsupported(t, "'" .. text .. "' expected")
  end
  return self:next()
end

-- Names the construct a token starts (or a plain syntax error).
function P:unsupported(t, fallback)
  if t.kind == "pp" then problem(t, "a preprocessor directive") end
  if t.kind == "string" then problem(t, "a string literal") end
  if t.kind == "char" then problem(t, "a character literal") end
  if KEYWORD_CONSTRUCTS[t.text] then
    problem(t, KEYWORD_CONSTRUCTS[t.text], KEYWORD_CONSTRUCTS[t.text] .. " ('" .. t.text .. "')")
  end
  if OP_CONSTRUCTS[t.text] then problem(t, OP_CONSTRUCTS[t.text]) end
  if t.text == "++" or t.text == "--" then
    problem(t, "an increment inside an expression", "'" .. t.text .. "' inside an expression; "
      .. "write it as a statement of its own")
  end
  if t.text == "*" then problem(t, "a pointer dereference", "a pointer dereference ('*')") end
  if ASSIGN_OPS[t.text] then
    problem(t, "an assignment inside an expression", "an assignment inside an expression")
  end
  problem(t, "a syntax error", (fallback or "unexpected") .. " near '" .. t.text .. "'")
end

local MAX_DEPTH = 1000

-- A tree node; expression nodes know their depth, which later stages
-- recurse through (a long chain a + b + ... is deep too).
local function node(t, k, fields)
  fields.k, fields.line, fields.col = k, t.line, t.col
  local d = 0
  for _, f in ipairs({ "a", "b", "c" }) do
    local x = fields[f]
    if type(x) == "table" and (x.depth or 0) > d then d = x.depth end
  end
  fields.depth = d + 1
  if fields.depth > MAX_DEPTH then
    problem(t, "an expression too deep", "an expression more than " .. MAX_DEPTH .. " operators deep; "
      .. "split it with local variables")
  end
  return fields
end

-- Expressions, by precedence.
local BINARY = {
  { ["||"] = true }, { ["&&"] = true }, { ["=="] = true, ["!="] = true },
  { ["<"] = true, [">"] = true, ["<="] = true, [">="] = true },
  { ["+"] = true, ["-"] = true }, { ["*"] = true, ["/"] = true, ["%"] = true },
}

function P:primary()
  local t = self:next()
  if t.kind == "number" then
    local v, ty = number(t)
    return node(t, "num", { v = v, ty = ty })
  end
  if t.kind == "ident" and not KEYWORD_CONSTRUCTS[t.text] and t.text ~= "int" and t.text ~= "double"
      and t.text ~= "const" and t.text ~= "if" and t.text ~= "for" and t.text ~= "else"
      and t.text ~= "return" then
    if self:at("(") then
      self:next()
      local args = {}
      if not self:at(")") then
        repeat args[#args + 1] = self:expr() until not (self:at(",") and self:next())
      end
      self:expect(")")
      return node(t, "call", { name = t.text, args = args })
    end
    local idx = {}
    while self:at("[") do
      self:next()
      idx[#idx + 1] = self:expr()
      self:expect("]")
    end
    if #idx > 0 then return node(t, "index", { name = t.text, idx = idx }) end
    return node(t, "name", { name = t.text })
  end
  if t.text == "(" and t.kind == "punct" then
    local e = self:expr()
    self:expect(")")
    return e
  end
  self:unsupported(t)
end

function P:postfix()
  local e = self:primary()
  local t = self:peek()
  if t and t.kind == "punct" and (t.text == "++" or t.text == "--" or t.text == "." or t.text == "->"
      or (t.text == "(" and e.k ~= "call") or (t.text == "[" and e.k == "call")) then
    self:unsupported(t)
  end
  return e
end

local CAST_TYPES = { int = true, double = true }

function P:unary()
  local t = self:peek()
  if not t then self:next() end
  if t.kind == "punct" and (t.text == "-" or t.text == "+" or t.text == "!") then
    self:next()
    self:nest(t, 1)
    local a = self:unary()
    self:nest(t, -1)
    return node(t, "unop", { op = t.text, a = a })
  end
  if self:at("(") then
    local n = self:peek(1)
    local j = 1
    if n and n.text == "const" then j = 2; n = self:peek(2) end
    if n and n.kind == "ident" and (CAST_TYPES[n.text] or KEYWORD_CONSTRUCTS[n.text]) and self:at(")", j + 1) then
      if not CAST_TYPES[n.text] then
        problem(n, "a cast to " .. n.text, "a cast to '" .. n.text .. "' (only (double) and (int) are supported)")
      end
      self.i = self.i + j + 2
      self:nest(t, 1)
      local a = self:unary()
      self:nest(t, -1)
      return node(t, "cast", { ty = n.text, a = a })
    end
    if n and n.kind == "ident" and n.text ~= "const" and (self:at("*", j + 1)) and CAST_TYPES[n.text] then
      problem(n, "a pointer cast")
    end
  end
  return self:postfix()
end

function P:binary(level)
  if level > #BINARY then return self:unary() end
  local e = self:binary(level + 1)
  while true do
    local t = self:peek()
    if not (t and t.kind == "punct" and BINARY[level][t.text]) then return e end
    self:next()
    e = node(t, "binop", { op = t.text, a = e, b = self:binary(level + 1) })
  end
end

local MAX_NESTING = 200

-- Guards the recursion of the parser (and of the stages after it).
function P:nest(t, delta)
  self.depth = (self.depth or 0) + delta
  if self.depth > MAX_NESTING then
    problem(t, "code nested too deeply", "expressions or statements nested more than "
      .. MAX_NESTING .. " deep")
  end
end

function P:expr()
  self:nest(self:peek(), 1)
  local e = self:expr_inner()
  self:nest(nil, -1)
  return e
end

function P:expr_inner()
  local e = self:binary(1)
  local t = self:peek()
  if t and t.kind == "punct" and t.text == "?" then
    self:next()
    local a = self:expr()
    self:expect(":")
    local b = self:expr()
    e = node(t, "cond", { c = e, a = a, b = b })
    e.line, e.col = t.line, t.col
  end
  local u = self:peek()
  if u and u.kind == "punct" and (OP_CONSTRUCTS[u.text] or ASSIGN_OPS[u.text] or u.text == "++"
      or u.text == "--") and u.text ~= "," then
    self:unsupported(u)
  end
  return e
end

-- Statements.
local function is_lvalue(e) return e.k == "name" or e.k == "index" end

function P:initializer()
  local t = self:peek()
  if self:at("{") then
    self:next()
    local items = {}
    while not self:at("}") do
      self:nest(t, 1)
      items[#items + 1] = self:initializer()
      self:nest(t, -1)
      if not self:at("}") then self:expect(",") end
    end
    self:next()
    return node(t, "init", { items = items })
  end
  return self:expr()
end

function P:declaration(out)
  local first = self:peek()
  local const = false
  if self:at("const") then self:next(); const = true end
  local ty = self:next().text
  if self:at("const") then self:next(); const = true end
  repeat
    local star = self:at("*") and self:next()
    if star and (self:at("const") or self:at("*")) then
      problem(self:peek(), "a pointer declaration outside the subset", "only `[const] double *name = "
        .. "array [+ constant];` pointer declarations are in the subset")
    end
    local nt = self:next()
    if nt.kind ~= "ident" then self:unsupported(nt, "a variable name expected") end
    local d = node(nt, "decl", { ty = ty, const = const, name = nt.text, dims = {}, ptr = star and true or nil })
    while self:at("[") do
      local lb = self:next()
      if self:at("]") then
        d.dims[#d.dims + 1] = false
        d.unsized_at = lb
      else
        d.dims[#d.dims + 1] = self:expr()
      end
      self:expect("]")
    end
    if d.ptr and #d.dims > 0 then problem(nt, "an array of pointers") end
    if self:at("=") then
      self:next()
      d.init = self:initializer()
    end
    if d.ptr and not d.init then
      problem(nt, "a pointer without an initializer", "the pointer '" .. nt.text .. "' has no initializer "
        .. "(a pointer of the subset is declared pointing into an array)")
    end
    d.first = first
    out[#out + 1] = d
  until not (self:at(",") and self:next())
  self:expect(";")
end

-- x = e, x += e, x++ ... (no trailing ';').
function P:simple()
  local t = self:peek()
  if t and (t.text == "++" or t.text == "--") and t.kind == "punct" then
    self:next()
    local target = self:postfix()
    if not is_lvalue(target) then problem(t, "an increment of a non-variable") end
    return node(t, "assign", { op = t.text == "++" and "+=" or "-=", target = target,
      value = node(t, "num", { v = 1, ty = "int" }) })
  end
  local target = self:primary()
  local op = self:peek()
  if target.k == "call" and not (op and ASSIGN_OPS[op.text]) then
    return node(t, "call", { e = target })
  end
  if not op then self:next() end
  if op.text == "++" or op.text == "--" then
    self:next()
    if not is_lvalue(target) then problem(op, "an increment of a non-variable") end
    return node(t, "assign", { op = op.text == "++" and "+=" or "-=", target = target,
      value = node(op, "num", { v = 1, ty = "int" }) })
  end
  if not ASSIGN_OPS[op.text] then self:unsupported(op, "an assignment expected") end
  if not is_lvalue(target) then problem(op, "an assignment to a non-variable") end
  self:next()
  local n = node(op, "assign", { op = op.text, target = target, value = self:expr() })
  n.line, n.col = t.line, t.col
  return n
end

local function is_decl_start(p)
  return p:at("double") or p:at("int") or (p:at("const") and (p:at("double", 1) or p:at("int", 1)))
end

function P:if_statement(t)
  self:next()
  self:expect("(")
  local c = self:expr()
  self:expect(")")
  local n = node(t, "if", { c = c, then_ = self:sub_statement() })
  if self:at("else") then self:next(); n.else_ = self:sub_statement() end
  return n
end

function P:for_statement(t)
  self:next()
  self:expect("(")
  local n = node(t, "for", {})
  if is_decl_start(self) then
    local ds = {}
    self:declaration(ds)
    if #ds ~= 1 then problem(ds[2], "a for loop declaring several variables") end
    n.init = ds[1]
  else
    if not self:at(";") then n.init = self:simple() end
    self:expect(";")
  end
  if not self:at(";") then
    local ct = self:peek()
    n.cond = self:expr()
    n.cond_at = { line = ct.line, col = ct.col }
  end
  self:expect(";")
  if not self:at(")") then n.step = self:simple() end
  self:expect(")")
  n.body = self:sub_statement()
  return n
end

function P:return_statement(t)
  if not self.in_helper then
    problem(t, "return in a calc body", "return in a calc body (calc bodies must run to their end)")
  end
  self:next()
  local n = node(t, "return", {})
  if not self:at(";") then n.e = self:expr() end
  self:expect(";")
  return n
end

-- One statement, appended to out (a declaration appends one per declarator).
function P:statement(out)
  local t = self:peek()
  self:nest(t, 1)
  self:statement_inner(out, t)
  self:nest(t, -1)
end

function P:statement_inner(out, t)
  if t.kind == "pp" then problem(t, "a preprocessor directive") end
  if self:at(";") then self:next(); return end
  if is_decl_start(self) then return self:declaration(out) end
  local n
  if self:at("{") then n = self:block()
  elseif self:at("if") then n = self:if_statement(t)
  elseif self:at("for") then n = self:for_statement(t)
  elseif self:at("return") then n = self:return_statement(t)
  elseif self:at("(") and self:at("void", 1) and self:at(")", 2) then
    self.i = self.i + 3
    n = node(t, "void", { e = self:expr() })
    self:expect(";")
  else
    if t.kind ~= "ident" and not (t.text == "++" or t.text == "--") or KEYWORD_CONSTRUCTS[t.text]
        or t.text == "else" then
      self:unsupported(t)
    end
    n = self:simple()
    self:expect(";")
  end
  out[#out + 1] = n
end

-- A statement in a position that takes one (if/else/for bodies).
function P:sub_statement()
  local t = self:peek()
  if not t then self:next() end
  local list = {}
  if is_decl_start(self) then problem(t, "a declaration as the body of if/for",
    "a declaration cannot be the body of if/else/for; put it in braces") end
  self:statement(list)
  return node(t, "block", { body = list })
end

function P:block()
  local t = self:expect("{")
  local list = {}
  while not self:at("}") do
    if not self:peek() then self:expect("}") end
    self:statement(list)
  end
  self:next()
  return node(t, "block", { body = list })
end

-- A calc body: statements up to the end of the tokens.
function M.body(toks)
  return catch(function()
    local p = new(toks, false)
    local list = {}
    while p:peek() do p:statement(list) end
    return { k = "block", body = list, line = 1, col = 1 }
  end)
end

-- A cursor over toks; helper = true allows `return` (cdiff/preamble.lua).
M.parser = new

return M
