-- cdiff/fold.lua: the values of an unrolled calc (methods of
-- cdiff/unroll.lua's state).  Each operation becomes a value of the SSA
-- program, unless an equal value dominates it (value numbering: common
-- subexpressions are computed once) or its operands are constants: then
-- it is folded with C's rules (int arithmetic truncates toward zero and
-- must not overflow, conversions to int truncate, comparisons give int
-- 0/1, usual arithmetic conversions).  Calls of math functions are never
-- folded (the C library computes them at run time, as in the body).
local parse = require("diagc.cdiff.parse")

local problem = parse.problem

local M = {}
local S = {}
M.methods = S

local INT_MIN, INT_MAX = -2147483648, 2147483647


function S:emit(stmt) self.block[#self.block + 1] = stmt end

local function key_of(op, ty, args, extra)
  if type(extra) == "table" then extra = extra.name .. "#" .. extra.index end
  return op .. ":" .. ty .. ":" .. table.concat(args, ",") .. ":" .. tostring(extra or "")
end

-- A value, shared with an equal one that dominates (common subexpressions).
function S:val(op, ty, args, extra, at)
  local key = key_of(op, ty, args, extra)
  local global = op == "const" or op == "in" or op == "old"
  local tables = global and { self.cse[1] } or self.cse
  for i = #tables, 1, -1 do
    local hit = tables[i][key]
    if hit then return hit end
  end
  local id = #self.vals + 1
  local v = { id = id, op = op, ty = ty, args = args, line = at and at.line, col = at and at.col }
  if op == "const" then v.v = extra
  elseif op == "call" then v.fn = extra
  elseif op == "in" or op == "old" then
    v.name, v.index, v.scalar, v.preload = extra.name, extra.index, extra.scalar, extra.preload
  end
  self.vals[id] = v
  if op ~= "phi" then (global and self.cse[1] or self.cse[#self.cse])[key] = id end
  if not global and op ~= "phi" then self:emit({ k = "def", id = id }) end
  return id
end

function S:const(v, ty)
  if ty == "int" and (v < INT_MIN or v > INT_MAX) then
    problem(self.at, "an integer overflow", "integer overflow in a constant expression")
  end
  return self:val("const", ty, {}, ty == "int" and string.format("%d", v) or string.format("%.17g", v))
end

function S:cval(id)
  local v = self.vals[id]
  if v.op == "const" then return tonumber(v.v) end
end

function S:ty(id) return self.vals[id].ty end

local function trunc(x) return x < 0 and math.ceil(x) or math.floor(x) end

-- Converts id to type ty (C's conversions).
function S:convert(id, ty, at)
  if self:ty(id) == ty then return id end
  local c = self:cval(id)
  if c then
    if ty == "int" then
      if c ~= c or c <= INT_MIN - 1 or c >= INT_MAX + 1 then
        problem(at, "an out-of-range conversion", "a double constant out of the range of int")
      end
      return self:const(trunc(c), "int")
    end
    return self:const(c, "double")
  end
  return self:val("cvt", ty, { id }, nil, at)
end

local ARITH = { ["+"] = "add", ["-"] = "sub", ["*"] = "mul", ["/"] = "div", ["%"] = "mod" }
local CMP = { ["<"] = "lt", [">"] = "gt", ["<="] = "le", [">="] = "ge", ["=="] = "eq", ["!="] = "ne" }
local CMP_FOLD = {
  lt = function(a, b) return a < b end, gt = function(a, b) return a > b end,
  le = function(a, b) return a <= b end, ge = function(a, b) return a >= b end,
  eq = function(a, b) return a == b end, ne = function(a, b) return a ~= b end,
}

function S:arith(op, a, b, at)
  local ty = (self:ty(a) == "double" or self:ty(b) == "double") and "double" or "int"
  if op == "mod" and ty == "double" then
    problem(at, "% on doubles", "'%' on a double operand; use fmod()")
  end
  a, b = self:convert(a, ty, at), self:convert(b, ty, at)
  local x, y = self:cval(a), self:cval(b)
  if x and y then
    if ty == "int" then
      if (op == "div" or op == "mod") and y == 0 then
        problem(at, "a division by zero", "an integer division by zero")
      end
      if op == "add" then return self:const(x + y, ty) end
      if op == "sub" then return self:const(x - y, ty) end
      if op == "mul" then return self:const(x * y, ty) end
      if op == "div" then return self:const(trunc(x / y), ty) end
      return self:const(x - y * trunc(x / y), ty)
    end
    if op == "add" then return self:const(x + y, ty) end
    if op == "sub" then return self:const(x - y, ty) end
    if op == "mul" then return self:const(x * y, ty) end
    if op == "div" and y ~= 0 then return self:const(x / y, ty) end
  end
  return self:val(op, ty, { a, b }, nil, at)
end

function S:compare(op, a, b, at)
  local ty = (self:ty(a) == "double" or self:ty(b) == "double") and "double" or "int"
  a, b = self:convert(a, ty, at), self:convert(b, ty, at)
  local x, y = self:cval(a), self:cval(b)
  if x and y then return self:const(CMP_FOLD[op](x, y) and 1 or 0, "int") end
  return self:val(op, "int", { a, b }, nil, at)
end

-- An int that is 0 or 1: the truth of id.
function S:truth(id, at)
  local v = self.vals[id]
  if CMP[v.op] or CMP_FOLD[v.op] or v.op == "not" then return id end
  if v.op == "phi" and v.bool then return id end
  return self:compare("ne", id, self:const(0, "int"), at)
end


M.ARITH, M.CMP = ARITH, CMP

return M
