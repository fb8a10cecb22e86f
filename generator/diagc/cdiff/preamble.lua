-- cdiff/preamble.lua: the helpers and constants of a leaf's c_preamble.
-- Takes the preamble's tokens (the host C lexer's) and the lexer itself
-- (to read #define texts); adds what calc bodies may use from it:
--   {helpers = {[name] = helper}, order = {name, ...} (definition order),
--    consts = {[name] = {e = expression tree, ty = "double"|"int"|nil, line=, col=}},
--    broken = {[name] = problem}}
--   helper: {name=, ret="double"|"int"|"void", params={{name=, ty=, array=bool,
--     const=bool}, ...}, body=block tree (cdiff/parse.lua), line=, col=}
-- Helpers are the `static` functions written in the subset; constants
-- are `static const double/int NAME = expr;` and object-like #defines of
-- a constant expression.  `broken` names every function, macro or
-- declaration outside the subset, and every helper on a call cycle
-- (direct or mutual recursion), with the problem (line/col in the
-- preamble; preamble = which of the leaf's preambles); a body is reported
-- only if it uses one.  Never fails.
local parse = require("diagc.cdiff.parse")
local mathfns = require("diagc.cdiff.mathfns").fns

local problem, catch = parse.problem, parse.catch

local M = {}


-- The token ranges of the preamble's top-level items: {from, to} with an
-- item ending at ';' at depth 0 or at the '}' closing a function body.
local function items(toks)
  local out, depth, from = {}, 0, 1
  for i, t in ipairs(toks) do
    if t.kind == "pp" then
      if depth == 0 and from == i then
        out[#out + 1] = { from = i, to = i }
        from = i + 1
      end
    elseif t.kind == "punct" then
      if t.text == "{" or t.text == "(" or t.text == "[" then depth = depth + 1
      elseif t.text == "}" or t.text == ")" or t.text == "]" then
        depth = depth - 1
        if depth == 0 and t.text == "}" and toks[i - 1] and not (toks[i + 1] and toks[i + 1].text == ";") then
          -- a function body ends here unless the braces are an initializer
          local j = from
          local is_fn = false
          while j < i do
            if toks[j].text == "(" then
              local k, d = j, 0
              repeat
                if toks[k].text == "(" then d = d + 1 elseif toks[k].text == ")" then d = d - 1 end
                k = k + 1
              until d == 0 or k > i
              is_fn = toks[k] and toks[k].text == "{"
              break
            end
            if toks[j].text == "=" then break end
            j = j + 1
          end
          if is_fn then
            out[#out + 1] = { from = from, to = i }
            from = i + 1
          end
        end
      elseif t.text == ";" and depth == 0 then
        out[#out + 1] = { from = from, to = i }
        from = i + 1
      end
    end
  end
  if from <= #toks then out[#out + 1] = { from = from, to = #toks } end
  return out
end

local function slice(toks, r)
  local s = {}
  for i = r.from, r.to do s[#s + 1] = toks[i] end
  return s
end

local TYPES = { double = true, int = true, void = true }

local function param(self)
  local first = self:peek()
  local const = false
  if self:at("const") then self:next(); const = true end
  local ty = self:next()
  if not (ty.text == "double" or ty.text == "int") then
    problem(ty, "a parameter of type " .. ty.text, "a helper parameter of type '" .. ty.text
      .. "' (double, int and pointers/arrays of them are supported)")
  end
  if self:at("const") then self:next(); const = true end
  local array = false
  if self:at("*") then
    self:next()
    array = true
    if self:at("const") or self:at("restrict") then self:next() end
  end
  local nt = self:next()
  if nt.kind ~= "ident" then self:unsupported(nt, "a parameter name expected") end
  if self:at("[") then
    array = true
    self:next()
    if not self:at("]") then self:expr() end
    self:expect("]")
  end
  if self:at("[") then problem(self:peek(), "a multi-dimensional array parameter") end
  return { name = nt.text, ty = ty.text, array = array, const = const, line = first.line, col = first.col }
end

-- static [inline] T name(params) { body }
local function helper(toks)
  local p = parse.parser(toks, true)
  p:expect("static")
  if p:at("inline") then p:next() end
  local ret = p:next()
  if not TYPES[ret.text] then
    problem(ret, "a helper returning " .. ret.text, "a helper returning '" .. ret.text
      .. "' (double, int or void are supported)")
  end
  if p:at("*") then problem(p:peek(), "a helper returning a pointer") end
  local nt = p:next()
  local h = { name = nt.text, ret = ret.text, params = {}, line = nt.line, col = nt.col }
  p:expect("(")
  if p:at("void") and p:at(")", 1) then p:next()
  elseif not p:at(")") then
    repeat h.params[#h.params + 1] = param(p) until not (p:at(",") and p:next())
  end
  p:expect(")")
  h.body = p:block()
  if p:peek() then p:unsupported(p:peek()) end
  return h
end

-- The name a top-level item declares (a function or an object), if any.
local function item_name(toks)
  for i, t in ipairs(toks) do
    if t.kind == "ident" and toks[i + 1] and (toks[i + 1].text == "(" or toks[i + 1].text == "="
        or toks[i + 1].text == ";" or toks[i + 1].text == "[") and not TYPES[t.text] then
      return t.text, t, toks[i + 1].text == "("
    end
  end
end

-- `static const double NAME = number;` (or int): a named constant.
local function constant(toks)
  local p = parse.parser(toks, false)
  if p:at("static") then p:next() end
  p:expect("const")
  local ty = p:next().text
  if ty ~= "double" and ty ~= "int" then return nil end
  local nt = p:next()
  p:expect("=")
  local e = p:expr()
  p:expect(";")
  if p:peek() then return nil end
  return { name = nt.text, ty = ty, e = e, line = nt.line, col = nt.col }
end

local function define(t, pre, lex)
  if t.name ~= "define" then return end
  local name, rest = t.args:match("^([%a_][%w_]*)(.*)$")
  if not name then return end
  if rest:sub(1, 1) == "(" then
    pre.broken[name] = { line = t.line, col = t.col, construct = "a function-like macro",
      message = "the function-like macro '" .. name .. "'" }
    return
  end
  local toks = lex(rest)
  local e = toks and #toks > 0 and catch(function()
    local p = parse.parser(toks, false)
    local x = p:expr()
    if p:peek() then problem(p:peek(), "x") end
    return x
  end)
  if e then
    pre.consts[name] = { ty = nil, e = e, line = t.line, col = t.col }
  else
    pre.broken[name] = { line = t.line, col = t.col, construct = "a macro",
      message = "the macro '" .. name .. "', which is not a constant expression" }
  end
end

-- A c_preamble: its static helpers, constants and what is outside the
-- subset (by name).  Never fails: problems are recorded per name.
function M.new() return { helpers = {}, order = {}, consts = {}, broken = {} } end

-- Adds the preamble toks (the index-th of its leaf) to pre; every helper,
-- constant and problem records preamble = index.  Call finish(pre) after
-- the last one.
function M.add(pre, toks, lex, index)
  for _, r in ipairs(items(toks)) do
    local s = slice(toks, r)
    if s[1].kind == "pp" then
      define(s[1], pre, lex)
    else
      local name, nt, is_fn = item_name(s)
      if name and is_fn and s[#s].text == ";" then
        -- a prototype: the definition is what counts
        nt = nil
      elseif name and is_fn and not (s[1].text == "static") then
        pre.broken[name] = { line = nt.line, col = nt.col, construct = "a non-static function",
          message = "the function '" .. name .. "' is not static (helpers of the subset are static functions)" }
      elseif name and is_fn then
        local h, prob = catch(helper, s)
        if h then
          if mathfns[name] then
            pre.broken[name] = { line = nt.line, col = nt.col, construct = "a helper named like a math function",
              message = "the helper '" .. name .. "' shadows the math function" }
          else
            pre.helpers[name] = h
            pre.order[#pre.order + 1] = name
          end
        else
          pre.broken[name] = prob
        end
      elseif name then
        local c = catch(constant, s)
        if c then pre.consts[c.name] = c
        else
          pre.broken[name] = { line = nt.line, col = nt.col, construct = "a preamble declaration",
            message = "'" .. name .. "', declared in the c_preamble outside the subset "
              .. "(only static const double/int constants and static helpers are)" }
        end
      end
    end
  end
  for _, set in ipairs({ pre.helpers, pre.consts, pre.broken }) do
    for _, x in pairs(set) do x.preamble = x.preamble or index end
  end
end

function M.finish(pre)
  M.check_recursion(pre)
  return pre
end

-- One preamble: add and finish.
function M.parse(toks, lex)
  local pre = M.new()
  M.add(pre, toks, lex, 1)
  return M.finish(pre)
end

-- Calls a helper body makes to other helpers, with their tokens.
local function calls_in(n, out)
  if type(n) ~= "table" then return out end
  if n.k == "call" and n.name then out[#out + 1] = n end
  for key, v in pairs(n) do
    if type(v) == "table" and key ~= "first" then calls_in(v, out) end
  end
  return out
end

-- Marks helpers on a call cycle as broken (direct or mutual recursion).
function M.check_recursion(pre)
  local state = {}
  local function visit(name, path)
    if state[name] == "done" then return end
    if state[name] == "active" then
      local cycle = {}
      local from
      for i, p in ipairs(path) do if p.name == name then from = i end end
      for i = from, #path do cycle[#cycle + 1] = path[i].name end
      cycle[#cycle + 1] = name
      local call = path[#path].call
      for i = from, #path do
        pre.broken[path[i].name] = { line = call.line, col = call.col, construct = "recursion",
          message = "recursion: " .. table.concat(cycle, " -> "),
          preamble = pre.helpers[path[#path].name].preamble }
      end
      return
    end
    state[name] = "active"
    local calls = calls_in(pre.helpers[name].body, {})
    table.sort(calls, function(a, b) return a.line < b.line or (a.line == b.line and a.col < b.col) end)
    for _, c in ipairs(calls) do
      if pre.helpers[c.name] then
        path[#path + 1] = { name = name, call = c }
        visit(c.name, path)
        path[#path] = nil
      end
    end
    state[name] = "done"
  end
  for _, name in ipairs(pre.order) do visit(name, {}) end
  for name in pairs(pre.broken) do pre.helpers[name] = nil end
end

return M
