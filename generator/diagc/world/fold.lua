-- world/fold.lua: constant folding for the generated dynamics.  Numbers
-- become exact C double literals (the shortest of %.15g/%.16g/%.17g that
-- reads back to the same double, so output is byte-identical across runs);
-- a "lin" is a linear combination of C expressions with constant
-- coefficients ({ {coef, expr}, ... }, expr "" = the constant 1), printed
-- with zero terms dropped and unit coefficients omitted (exact in IEEE
-- arithmetic).  Also the constant 3x3 algebra of joint frames (URDF rpy).
-- A constant that is not finite cannot be folded: M.num raises
-- { world_fold = value } (world/dynamics.lua adds the function being
-- generated; world/lower.lua makes it an error at the world's line).
local M = {}

-- Is e the error M.num raises?
function M.is_nonfinite(e) return type(e) == "table" and rawget(e, "world_fold") ~= nil end

function M.num(x)
  if x ~= x or x == math.huge or x == -math.huge then error({ world_fold = x }, 0) end
  if x == 0 then return "0.0" end
  local s
  for _, p in ipairs({ 15, 16, 17 }) do
    s = string.format("%." .. p .. "g", x)
    if tonumber(s) == x then break end
  end
  if not s:find("[%.eEn]") then s = s .. ".0" end
  return s
end

-- Sums the coefficients of equal expressions (first appearance order) and
-- drops zero terms.
function M.combine(terms)
  local out, at = {}, {}
  for _, t in ipairs(terms) do
    local c, e = t[1], t[2]
    if at[e] then
      out[at[e]][1] = out[at[e]][1] + c
    else
      out[#out + 1] = { c, e }
      at[e] = #out
    end
  end
  local kept = {}
  for _, t in ipairs(out) do
    if t[1] ~= 0 then kept[#kept + 1] = t end
  end
  return kept
end

local function term(c, e, first)
  local neg = c < 0
  local a = neg and -c or c
  local body
  if e == "" then body = M.num(a)
  elseif a == 1 then body = e
  else body = M.num(a) .. " * " .. e end
  if first then return (neg and "-" or "") .. body end
  return (neg and " - " or " + ") .. body
end

-- The C text of a lin ("0.0" when empty).
function M.str(terms)
  terms = M.combine(terms)
  if #terms == 0 then return "0.0" end
  local s = {}
  for i, t in ipairs(terms) do s[i] = term(t[1], t[2], i == 1) end
  return table.concat(s)
end

-- Is a lin (after combining) empty?
function M.is_zero(terms) return #M.combine(terms) == 0 end

-- sum_k rt[k] * lin[k], where rt[k] are runtime C expressions: grouped by
-- the lin's expressions, each group's runtime factor a lin of its own.
function M.product(rt, lins)
  local groups, order = {}, {}
  for k, lin in ipairs(lins) do
    for _, t in ipairs(M.combine(lin)) do
      local e = t[2]
      if not groups[e] then groups[e] = {}; order[#order + 1] = e end
      local g = groups[e]
      g[#g + 1] = { t[1], rt[k] }
    end
  end
  local parts = {}
  for _, e in ipairs(order) do
    local inner = M.combine(groups[e])
    if #inner > 0 then
      if e == "" then
        parts[#parts + 1] = { M.str(inner), false }
      elseif #inner == 1 then
        local c, x = inner[1][1], inner[1][2]
        parts[#parts + 1] = { M.str({ { c, x .. " * " .. e } }), c < 0 }
      else
        parts[#parts + 1] = { "(" .. M.str(inner) .. ") * " .. e, false }
      end
    end
  end
  if #parts == 0 then return "0.0" end
  local s = parts[1][1]
  for i = 2, #parts do
    local p, neg = parts[i][1], parts[i][2]
    s = s .. (neg and (" - " .. p:sub(2)) or (" + " .. p))
  end
  return s
end

-- constant 3x3 algebra, row-major flat arrays of 9
function M.rpy(r)
  local cr, sr = math.cos(r[1]), math.sin(r[1])
  local cp, sp = math.cos(r[2]), math.sin(r[2])
  local cy, sy = math.cos(r[3]), math.sin(r[3])
  if r[1] == 0 then cr, sr = 1, 0 end
  if r[2] == 0 then cp, sp = 1, 0 end
  if r[3] == 0 then cy, sy = 1, 0 end
  -- Rz(y) Ry(p) Rx(r)
  return {
    cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
    sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
    -sp, cp * sr, cp * cr,
  }
end

function M.mul33(A, B)
  local C = {}
  for i = 0, 2 do
    for k = 0, 2 do
      local s = 0
      for j = 0, 2 do s = s + A[3 * i + j + 1] * B[3 * j + k + 1] end
      C[3 * i + k + 1] = s
    end
  end
  return C
end

function M.mulv(A, x)
  local y = {}
  for i = 0, 2 do
    y[i + 1] = A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2] + A[3 * i + 3] * x[3]
  end
  return y
end

-- skew(a) so that skew(a) x = a x x
function M.skew(a)
  return { 0, -a[3], a[2], a[3], 0, -a[1], -a[2], a[1], 0 }
end

-- the outer product a b^T
function M.outer(a, b)
  local C = {}
  for i = 1, 3 do for k = 1, 3 do C[3 * (i - 1) + k] = a[i] * b[k] end end
  return C
end

function M.sub33(A, B)
  local C = {}
  for i = 1, 9 do C[i] = A[i] - B[i] end
  return C
end

M.I3 = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }

return M
