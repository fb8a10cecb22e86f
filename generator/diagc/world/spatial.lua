-- world/spatial.lua: the small static inline C helpers of the generated
-- dynamics (3x3 products, quaternions, world-frame spatial inertias and
-- cross products), each emitted once per prefix and only when used.
--
-- Spatial vectors are 6 doubles in world coordinates about the world
-- origin: motion (angular w, linear velocity of the point at the origin),
-- force (moment about the origin, force).  A spatial inertia is 10 doubles:
-- m, h = m * com (3), the rotational inertia about the origin (xx, yy, zz,
-- xy, xz, yz).
--
--   local h = spatial.helpers(prefix)
--   local name = h:use("body_force")   -- the C name, marks it (and its deps) used
--   h:text()                           -- the used helpers' C, in a fixed order
local M = {}

local ORDER = { "mul33", "quat_rot", "quat_step", "body_inertia", "inertia_add", "inertia_apply",
  "cross_m", "cross_f", "body_force", "dot6", "body_energy" }

local DEPS = { body_force = { "inertia_apply", "cross_f" } }

local C = {}

C.mul33 = [[
static inline void P_mul33(const double *A, const double *B, double *C)
{
  int i;
  for (i = 0; i < 3; ++i) {
    C[3 * i] = A[3 * i] * B[0] + A[3 * i + 1] * B[3] + A[3 * i + 2] * B[6];
    C[3 * i + 1] = A[3 * i] * B[1] + A[3 * i + 1] * B[4] + A[3 * i + 2] * B[7];
    C[3 * i + 2] = A[3 * i] * B[2] + A[3 * i + 1] * B[5] + A[3 * i + 2] * B[8];
  }
}
]]

-- R (row-major, parent <- child) of a unit quaternion w, x, y, z
C.quat_rot = [[
static inline void P_quat_rot(const double *q, double *R)
{
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1.0 - 2.0 * (y * y + z * z);
  R[1] = 2.0 * (x * y - w * z);
  R[2] = 2.0 * (x * z + w * y);
  R[3] = 2.0 * (x * y + w * z);
  R[4] = 1.0 - 2.0 * (x * x + z * z);
  R[5] = 2.0 * (y * z - w * x);
  R[6] = 2.0 * (x * z - w * y);
  R[7] = 2.0 * (y * z + w * x);
  R[8] = 1.0 - 2.0 * (x * x + y * y);
}
]]

-- out = q * exp(dt w / 2) (w: angular velocity in the child frame), renormalized
C.quat_step = [[
static inline void P_quat_step(const double *q, const double *w, double dt, double *out)
{
  const double n = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  const double a = 0.5 * dt * n;
  const double s = a * a < 1e-12 ? 0.5 * dt * (1.0 - a * a / 6.0) : sin(a) / n;
  const double c = cos(a);
  const double ex = s * w[0], ey = s * w[1], ez = s * w[2];
  double r0 = q[0] * c - q[1] * ex - q[2] * ey - q[3] * ez;
  double r1 = q[0] * ex + q[1] * c + q[2] * ez - q[3] * ey;
  double r2 = q[0] * ey - q[1] * ez + q[2] * c + q[3] * ex;
  double r3 = q[0] * ez + q[1] * ey - q[2] * ex + q[3] * c;
  const double k = 1.0 / sqrt(r0 * r0 + r1 * r1 + r2 * r2 + r3 * r3);
  out[0] = r0 * k;
  out[1] = r1 * k;
  out[2] = r2 * k;
  out[3] = r3 * k;
}
]]

-- the world-frame spatial inertia about the origin of a body at pose X with
-- mass m, centre of mass c (body frame) and inertia about it (body axes)
C.body_inertia = [[
static inline void P_body_inertia(const double *X, double m, double cx, double cy, double cz,
                                  double ixx, double iyy, double izz, double ixy, double ixz,
                                  double iyz, double *I)
{
  const double *R = X;
  const double Ib[9] = { ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz };
  double T[9], c[3];
  int i, k;
  for (i = 0; i < 3; ++i) {
    c[i] = X[9 + i] + R[3 * i] * cx + R[3 * i + 1] * cy + R[3 * i + 2] * cz;
    for (k = 0; k < 3; ++k) {
      T[3 * i + k] = R[3 * i] * Ib[k] + R[3 * i + 1] * Ib[3 + k] + R[3 * i + 2] * Ib[6 + k];
    }
  }
  I[0] = m;
  I[1] = m * c[0];
  I[2] = m * c[1];
  I[3] = m * c[2];
  I[4] = T[0] * R[0] + T[1] * R[1] + T[2] * R[2] + m * (c[1] * c[1] + c[2] * c[2]);
  I[5] = T[3] * R[3] + T[4] * R[4] + T[5] * R[5] + m * (c[0] * c[0] + c[2] * c[2]);
  I[6] = T[6] * R[6] + T[7] * R[7] + T[8] * R[8] + m * (c[0] * c[0] + c[1] * c[1]);
  I[7] = T[0] * R[3] + T[1] * R[4] + T[2] * R[5] - m * c[0] * c[1];
  I[8] = T[0] * R[6] + T[1] * R[7] + T[2] * R[8] - m * c[0] * c[2];
  I[9] = T[3] * R[6] + T[4] * R[7] + T[5] * R[8] - m * c[1] * c[2];
}
]]

C.inertia_add = [[
static inline void P_inertia_add(double *A, const double *B)
{
  int i;
  for (i = 0; i < 10; ++i) A[i] += B[i];
}
]]

-- F = I V: moment n = Ibar w + h x v, force f = m v - h x w
C.inertia_apply = [[
static inline void P_inertia_apply(const double *I, const double *V, double *F)
{
  const double *h = I + 1, *w = V, *v = V + 3;
  F[0] = I[4] * w[0] + I[7] * w[1] + I[8] * w[2] + h[1] * v[2] - h[2] * v[1];
  F[1] = I[7] * w[0] + I[5] * w[1] + I[9] * w[2] + h[2] * v[0] - h[0] * v[2];
  F[2] = I[8] * w[0] + I[9] * w[1] + I[6] * w[2] + h[0] * v[1] - h[1] * v[0];
  F[3] = I[0] * v[0] - h[1] * w[2] + h[2] * w[1];
  F[4] = I[0] * v[1] - h[2] * w[0] + h[0] * w[2];
  F[5] = I[0] * v[2] - h[0] * w[1] + h[1] * w[0];
}
]]

-- motion cross motion: out = a x b
C.cross_m = [[
static inline void P_cross_m(const double *a, const double *b, double *out)
{
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
  out[3] = a[1] * b[5] - a[2] * b[4] + a[4] * b[2] - a[5] * b[1];
  out[4] = a[2] * b[3] - a[0] * b[5] + a[5] * b[0] - a[3] * b[2];
  out[5] = a[0] * b[4] - a[1] * b[3] + a[3] * b[1] - a[4] * b[0];
}
]]

-- motion cross force: out += a x* f
C.cross_f = [[
static inline void P_cross_f_add(const double *a, const double *f, double *out)
{
  out[0] += a[1] * f[2] - a[2] * f[1] + a[4] * f[5] - a[5] * f[4];
  out[1] += a[2] * f[0] - a[0] * f[2] + a[5] * f[3] - a[3] * f[5];
  out[2] += a[0] * f[1] - a[1] * f[0] + a[3] * f[4] - a[4] * f[3];
  out[3] += a[1] * f[5] - a[2] * f[4];
  out[4] += a[2] * f[3] - a[0] * f[5];
  out[5] += a[0] * f[4] - a[1] * f[3];
}
]]

-- a body's net spatial force for acceleration A at velocity V: I A + V x* (I V)
C.body_force = [[
static inline void P_body_force(const double *I, const double *V, const double *A, double *F)
{
  double h[6];
  P_inertia_apply(I, V, h);
  P_inertia_apply(I, A, F);
  P_cross_f_add(V, h, F);
}
]]

C.dot6 = [[
static inline double P_dot6(const double *a, const double *b)
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}
]]

-- kinetic + potential energy of one body at pose X and spatial velocity V,
-- from its centre of mass velocity and body-frame inertia (gravity g)
C.body_energy = [[
static inline double P_body_energy(const double *X, const double *V, double m, double cx, double cy,
                                   double cz, double ixx, double iyy, double izz, double ixy,
                                   double ixz, double iyz, double gx, double gy, double gz)
{
  const double *R = X;
  double c[3], vc[3], wb[3];
  int i;
  for (i = 0; i < 3; ++i) {
    c[i] = X[9 + i] + R[3 * i] * cx + R[3 * i + 1] * cy + R[3 * i + 2] * cz;
    wb[i] = R[i] * V[0] + R[3 + i] * V[1] + R[6 + i] * V[2];
  }
  vc[0] = V[3] + V[1] * c[2] - V[2] * c[1];
  vc[1] = V[4] + V[2] * c[0] - V[0] * c[2];
  vc[2] = V[5] + V[0] * c[1] - V[1] * c[0];
  return 0.5 * m * (vc[0] * vc[0] + vc[1] * vc[1] + vc[2] * vc[2])
    + 0.5 * (wb[0] * (ixx * wb[0] + ixy * wb[1] + ixz * wb[2])
             + wb[1] * (ixy * wb[0] + iyy * wb[1] + iyz * wb[2])
             + wb[2] * (ixz * wb[0] + iyz * wb[1] + izz * wb[2]))
    - m * (gx * c[0] + gy * c[1] + gz * c[2]);
}
]]

local NAMES = { cross_f = "cross_f_add" }

local Helpers = {}
Helpers.__index = Helpers

function Helpers:use(name)
  assert(C[name], "unknown helper " .. name)
  if not self.used[name] then
    self.used[name] = true
    for _, d in ipairs(DEPS[name] or {}) do self:use(d) end
  end
  return self.prefix .. "_" .. (NAMES[name] or name)
end

function Helpers:text()
  local out = {}
  local p = self.prefix
  for _, name in ipairs(ORDER) do
    if self.used[name] then
      out[#out + 1] = (C[name]:gsub("P_(%w)", function(c) return p .. "_" .. c end))
    end
  end
  return table.concat(out, "\n")
end

-- body b's inertial numbers m, cx, cy, cz, ixx, iyy, izz, ixy, ixz, iyz
-- as C arguments: the C expressions `exprs` (the world's parameters,
-- world/tree.lua's M.inertial) when given, else b's literals
function M.body_args(b, exprs)
  if exprs then return table.concat(exprs, ", ") end
  local num = require("diagc.world.fold").num
  local c, I = b.com or { 0, 0, 0 }, b.inertia
  local a = { b.mass, c[1], c[2], c[3], I[1], I[2], I[3], I[4] or 0, I[5] or 0, I[6] or 0 }
  for i = 1, #a do a[i] = num(a[i]) end
  return table.concat(a, ", ")
end

function M.helpers(prefix)
  return setmetatable({ prefix = prefix, used = {} }, Helpers)
end

return M
