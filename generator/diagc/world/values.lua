-- world/values.lua: validation of the numbers and vectors a world declares
-- (masses, inertias, 3-vectors, quaternions); each error names the field
-- and says what a valid value is.
local errors = require("diagc.errors")
local limits = require("diagc.vocab.limits")

local M = {}

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

function M.identifier(loc, what, s)
  if type(s) ~= "string" or not s:match("^[A-Za-z][A-Za-z0-9_]*$") or s:find("__", 1, true) then
    errors.raise(loc, "%s must be a name of letters, digits and single _ starting with a letter, got %s",
      what, errors.describe(s))
  end
  local long = limits.name_problem(what, s)
  if long then errors.raise(loc, "%s", long) end
  return s
end

function M.number(loc, what, v)
  if not finite(v) then errors.raise(loc, "%s must be a finite number, got %s", what, errors.describe(v)) end
  return v
end

function M.positive(loc, what, v)
  M.number(loc, what, v)
  if v <= 0 then errors.raise(loc, "%s must be positive, got %.17g", what, v) end
  return v
end

function M.nonneg(loc, what, v)
  M.number(loc, what, v)
  if v < 0 then errors.raise(loc, "%s must not be negative, got %.17g", what, v) end
  return v
end

function M.unit_interval(loc, what, v)
  M.number(loc, what, v)
  if v < 0 or v > 1 then errors.raise(loc, "%s must be in [0, 1], got %.17g", what, v) end
  return v
end

function M.count(loc, what, v)
  if not finite(v) or v ~= math.floor(v) or v < 1 or v > 1e7 then
    errors.raise(loc, "%s must be a positive integer, got %s", what, errors.describe(v))
  end
  return v
end

-- A plain list of n finite numbers.
function M.list(loc, what, v, n)
  if type(v) ~= "table" or #v ~= n then
    errors.raise(loc, "%s must be a list of %d numbers, got %s", what, n,
      type(v) == "table" and string.format("%d value%s", #v, #v == 1 and "" or "s") or errors.describe(v))
  end
  local out = {}
  for k in pairs(v) do
    if type(k) ~= "number" or k < 1 or k > n or k ~= math.floor(k) then
      errors.raise(loc, "%s must be a plain list of %d numbers", what, n)
    end
  end
  for i = 1, n do out[i] = M.number(loc, string.format("%s[%d]", what, i - 1), v[i]) end
  return out
end

function M.vec3(loc, what, v) return M.list(loc, what, v, 3) end

-- A nonzero 3-vector, normalized.
function M.unit3(loc, what, v)
  local a = M.vec3(loc, what, v)
  local n = math.sqrt(a[1] * a[1] + a[2] * a[2] + a[3] * a[3])
  if n < 1e-12 then errors.raise(loc, "%s must be a nonzero direction, got {0, 0, 0}", what) end
  return { a[1] / n, a[2] / n, a[3] / n }
end

-- inertia = {ixx, iyy, izz} or {ixx, iyy, izz, ixy, ixz, iyz}: 6 numbers.
function M.inertia(loc, v)
  if v == nil then return nil end
  if type(v) == "table" and #v == 3 then
    local d = M.list(loc, "inertia", v, 3)
    return { d[1], d[2], d[3], 0, 0, 0 }
  end
  if type(v) ~= "table" or #v ~= 6 then
    errors.raise(loc, "inertia must be {ixx, iyy, izz} or {ixx, iyy, izz, ixy, ixz, iyz} (about the "
      .. "centre of mass, in body axes), got %s", errors.describe(v))
  end
  return M.list(loc, "inertia", v, 6)
end

-- The rotational inertia of a moving body must be symmetric positive
-- definite (Sylvester: the leading minors are positive).
function M.inertia_pd(loc, name, I)
  if I == nil then
    errors.raise(loc, "body '%s' needs an inertia = {ixx, iyy, izz[, ixy, ixz, iyz]} (it moves)", name)
  end
  local xx, yy, zz, xy, xz, yz = I[1], I[2], I[3], I[4], I[5], I[6]
  local m1 = xx
  local m2 = xx * yy - xy * xy
  local m3 = xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz)
  local scale = math.max(math.abs(xx), math.abs(yy), math.abs(zz), 1e-300)
  if not (m1 > 0 and m2 > 1e-12 * scale * scale and m3 > 1e-12 * scale * scale * scale) then
    errors.raise(loc, "body '%s': inertia {%.6g, %.6g, %.6g, %.6g, %.6g, %.6g} is not positive definite; "
      .. "give the rotational inertia about the centre of mass (all principal moments > 0)",
      name, xx, yy, zz, xy, xz, yz)
  end
end

-- A unit quaternion {w, x, y, z} (within 1e-9), returned as given.
function M.unit_quaternion(loc, what, q)
  local n2 = q[1] * q[1] + q[2] * q[2] + q[3] * q[3] + q[4] * q[4]
  if math.abs(n2 - 1) > 1e-9 then
    errors.raise(loc, "%s {%.17g, %.17g, %.17g, %.17g} is not a unit quaternion (norm %.17g); "
      .. "give {w, x, y, z} with w^2 + x^2 + y^2 + z^2 = 1", what, q[1], q[2], q[3], q[4], math.sqrt(n2))
  end
  return q
end

return M
