-- lib/lti.lua: linear time-invariant conversions for the block library
-- (docs/library.md, "Blocks").
--
--   M.tf2ss(num, den) -> A, B, C, D | nil, problem
--     num(s) / den(s), coefficients from the highest power, as the
--     controllable canonical form of order deg den: x' = A x + B u,
--     y = C x + D u (tables of rows; D is 1 x 1).  den's leading
--     coefficient is divided out; deg num <= deg den (proper).
local M = {}

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

local function coefficients(v, name)
  if type(v) ~= "table" or #v == 0 then return nil, name .. " must be a list of coefficients from the highest power" end
  if #v > 64 then return nil, string.format("%s has %d coefficients; at most 64", name, #v) end
  for i = 1, #v do
    if not finite(v[i]) then return nil, string.format("%s[%d] must be a finite number", name, i) end
  end
  local first = 1
  while first < #v and v[first] == 0 do first = first + 1 end
  local out = {}
  for i = first, #v do out[#out + 1] = v[i] end
  return out
end

function M.tf2ss(num, den)
  local b, why = coefficients(num, "num")
  if not b then return nil, why end
  local a
  a, why = coefficients(den, "den")
  if not a then return nil, why end
  if a[1] == 0 then return nil, "den is zero" end
  local n = #a - 1
  if #b - 1 > n then
    return nil, string.format("num has degree %d above den's %d: the transfer function is not proper", #b - 1, n)
  end
  if n == 0 then return nil, "den has degree 0: a constant is a gain (blocks.gain)" end
  local lead = a[1]
  local an, bn = {}, {}
  for i = 1, n do an[i] = a[i + 1] / lead end
  for i = 0, n do bn[i] = 0 end
  for i = 1, #b do bn[n + 1 - #b + i - 1] = b[i] / lead end -- bn[0] is the s^n coefficient
  local A, B, C = {}, {}, { {} }
  for i = 1, n do
    A[i] = {}
    for j = 1, n do A[i][j] = (i == 1) and -an[j] or ((j == i - 1) and 1 or 0) end
    B[i] = { i == 1 and 1 or 0 }
    C[1][i] = bn[i] - bn[0] * an[i]
  end
  return A, B, C, { { bn[0] } }
end

return M
