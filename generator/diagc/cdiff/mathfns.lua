-- cdiff/mathfns.lua: the <math.h> functions of the differentiable subset
-- and their partial derivatives (the one table parse, activity and
-- forward read): {fns = {[name] = entry}, CONSTANTS = {[name] = value}}.
--
-- fns[name]: {n = arity, d = function(A, R) -> partials}, where A[k] is
-- the C text of argument k, R the C text of the result, and partials[k]
-- is the C text of d result / d argument k, or nil when that derivative
-- is zero almost everywhere (the argument then contributes no sparsity).
-- An entry with `select` instead of `d` is a choice between its two
-- arguments: select(A) is a C condition, true when the result is the
-- second argument, and the derivative is that of the chosen argument.
--
-- At kinks and edges the choice is the derivative of the branch a C
-- implementation would take (documented in docs/jacobians.md):
--   fabs(x): -1 for x < 0, +1 otherwise (x = 0 included);
--   fmin/fmax: the derivative of the argument returned, the first one on
--     a tie (and the non-NaN one when one is NaN);
--   floor, ceil: 0; fmod(x, y): 1 and -trunc(x/y); copysign(x, y): +-1
--     for x, 0 for y;
--   hypot and atan2 at the origin: 0; pow(x, y) w.r.t. y for x <= 0: 0;
--   sqrt(0), asin/acos(+-1), log(0): the infinite one-sided limit.
local M = {}

local function f1(fn) return { n = 1, d = function(A, R) return { fn(A[1], R) } end } end

M.sin = f1(function(x) return "cos(" .. x .. ")" end)
M.cos = f1(function(x) return "-sin(" .. x .. ")" end)
M.tan = f1(function(_, r) return "1.0 + " .. r .. " * " .. r end)
M.asin = f1(function(x) return "1.0 / sqrt(1.0 - " .. x .. " * " .. x .. ")" end)
M.acos = f1(function(x) return "-1.0 / sqrt(1.0 - " .. x .. " * " .. x .. ")" end)
M.atan = f1(function(x) return "1.0 / (1.0 + " .. x .. " * " .. x .. ")" end)
M.sinh = f1(function(x) return "cosh(" .. x .. ")" end)
M.cosh = f1(function(x) return "sinh(" .. x .. ")" end)
M.tanh = f1(function(_, r) return "1.0 - " .. r .. " * " .. r end)
M.exp = f1(function(_, r) return r end)
M.log = f1(function(x) return "1.0 / " .. x end)
M.log10 = f1(function(x) return "0.43429448190325182765 / " .. x end)
M.sqrt = f1(function(_, r) return "0.5 / " .. r end)
M.fabs = f1(function(x) return "(" .. x .. " < 0.0 ? -1.0 : 1.0)" end)
M.floor = { n = 1, d = function() return {} end }
M.ceil = { n = 1, d = function() return {} end }

M.atan2 = { n = 2, d = function(A)
  local y, x = A[1], A[2]
  local den = "(" .. x .. " * " .. x .. " + " .. y .. " * " .. y .. ")"
  return { "(" .. den .. " > 0.0 ? " .. x .. " / " .. den .. " : 0.0)",
    "(" .. den .. " > 0.0 ? -" .. y .. " / " .. den .. " : 0.0)" }
end }
M.pow = { n = 2, d = function(A, R)
  local x, y = A[1], A[2]
  return { y .. " * pow(" .. x .. ", " .. y .. " - 1.0)",
    "(" .. x .. " > 0.0 ? log(" .. x .. ") * " .. R .. " : 0.0)" }
end }
M.hypot = { n = 2, d = function(A, R)
  return { "(" .. R .. " > 0.0 ? " .. A[1] .. " / " .. R .. " : 0.0)",
    "(" .. R .. " > 0.0 ? " .. A[2] .. " / " .. R .. " : 0.0)" }
end }
M.fmod = { n = 2, d = function(A) return { "1.0", "-trunc(" .. A[1] .. " / " .. A[2] .. ")" } end }
M.copysign = { n = 2, d = function(A)
  return { "((signbit(" .. A[1] .. ") != 0) == (signbit(" .. A[2] .. ") != 0) ? 1.0 : -1.0)" }
end }
M.fmin = { n = 2, select = function(A) return "(" .. A[2] .. " < " .. A[1] .. " || isnan(" .. A[1] .. "))" end }
M.fmax = { n = 2, select = function(A) return "(" .. A[2] .. " > " .. A[1] .. " || isnan(" .. A[1] .. "))" end }

-- math.h constants (POSIX names many bodies use), with their values.
local CONSTANTS = {
  M_E = 2.718281828459045, M_LOG2E = 1.4426950408889634, M_LOG10E = 0.4342944819032518,
  M_LN2 = 0.6931471805599453, M_LN10 = 2.302585092994046, M_PI = 3.141592653589793,
  M_PI_2 = 1.5707963267948966, M_PI_4 = 0.7853981633974483, M_1_PI = 0.3183098861837907,
  M_2_PI = 0.6366197723675814, M_2_SQRTPI = 1.1283791670955126, M_SQRT2 = 1.4142135623730951,
  M_SQRT1_2 = 0.7071067811865476,
}

return { fns = M, CONSTANTS = CONSTANTS }
