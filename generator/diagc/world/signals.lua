-- world/signals.lua: a world's signals by name (docs/world.md, "Signals by
-- name"): the element names of its state, the joints as settable groups,
-- and one output port per moving body and per joint.
--
--   M.state_names(C)   pos and vel element names: joint J's coordinates
--                      "J.q" (revolute, prismatic), "J.qw" .. "J.qz"
--                      (ball), "J.x" "J.y" "J.z" "J.qw" .. "J.qz" (free);
--                      its rates "J.v", "J.wx" .. "J.wz", "J.vx" .. "J.wz"
--   M.groups(C)        {name = J, first = (0-based in pos), size = nq}
--                      per moving joint: --state world.J=... sets them
--   M.port(C, P, label)  the port named label (a spec for
--                      check/added_port.lua), or nil; a port is in the
--                      model once a diagram connects, exports or logs it:
--                      a world costs nothing for the ports it does not use
--     B.pose      (label "B.pose") the body's origin in the world and its
--                 orientation: x y z qw qx qy qz (world <- body, w >= 0
--                 unless copied from a free joint's own q), or with
--                 pose = "rpy", x y z roll pitch yaw (URDF's fixed-axis
--                 convention); a free joint on the world placed at the
--                 origin copies its q (exact)
--     B.velocity  vx vy vz (the origin's velocity) wx wy wz (angular), in
--                 world axes
--     J.q, J.v    the joint's coordinates and rates (names as the state's)
--     contacts    (a world with candidate pairs) the contacts of the step
--                 from the current state: n, then per contact slot cK.x
--                 .. cK.pn (point, normal, depth, normal impulse), read
--                 from the step's work
--   Each reads only what it needs (pos; pos and vel; work).
--   M.labels(C)        every port's name, in order
--   M.emit(C, P)       the C helpers the ports call (static inline)
local errors = require("diagc.errors")

local M = {}

local Q_NAMES = { revolute = { "q" }, prismatic = { "q" }, ball = { "qw", "qx", "qy", "qz" },
  free = { "x", "y", "z", "qw", "qx", "qy", "qz" } }
local CONTACT = { "x", "y", "z", "nx", "ny", "nz", "depth", "pn" }
local V_NAMES = { revolute = { "v" }, prismatic = { "v" }, ball = { "wx", "wy", "wz" },
  free = { "vx", "vy", "vz", "wx", "wy", "wz" } }

-- the world's own state groups and parameters (world/lower.lua): no joint
-- may take their names
M.STATE = { pos = true, vel = true, info = true, imp = true, friction = true, restitution = true, damping = true, mass = true,
  com = true, inertia = true, pair_friction = true, pair_restitution = true }

local function moving_joints(C)
  local list = {}
  for _, b in ipairs(C.bodies) do
    if b.nq > 0 then list[#list + 1] = b end
  end
  return list
end

-- a body's or joint's name with its longest suffix (".velocity") is at
-- most a name's length (vocab/limits.lua), so the descriptor's paths stay
-- within a C99 string literal
local SUFFIX = #".velocity"

local function check_length(b, what, n)
  local max = require("diagc.vocab.limits").NAME - SUFFIX
  if #n > max then
    errors.raise(b.loc, "%s '%s...' is %d characters long; a world's body and joint names are at most %d characters "
      .. "(its outputs are named \"NAME.velocity\"); choose a shorter name", what, n:sub(1, 40), #n, max)
  end
end

-- joint names are unique, not the names of the world's state, and short
-- enough
local function check_names(C)
  for _, b in ipairs(C.bodies) do
    if not b.welded then check_length(b, "body name", b.name) end
    if b.nq > 0 then check_length(b, "joint name", b.joint.name) end
  end
  local seen = {}
  for _, b in ipairs(moving_joints(C)) do
    local n = b.joint.name
    if M.STATE[n] then
      errors.raise(b.loc, "world \"%s\": body '%s': a joint named '%s' would share its name with the world's state "
        .. "'%s' (--state %s.%s); give joint = { ..., name = \"...\" } another name", C.name, b.name, n, n, C.name, n)
    end
    if seen[n] then
      errors.raise(b.loc, "world \"%s\": body '%s' and body '%s' both have a joint named '%s'; joint names must be "
        .. "unique (give joint = { ..., name = \"...\" })", C.name, seen[n], b.name, n)
    end
    seen[n] = b.name
  end
end

-- Why "B.mass", "B.inertia" or "B.com" of a body B of world C is not a
-- numeric parameter (a body welded to the world has none; a lone free
-- body whose spec puts its centre of mass at its origin keeps it there:
-- world/lone.lua's M.fixed_com), or nil for any other name
function M.not_a_parameter(C, name)
  local body, what = name:match("^(.*)%.([%a_]+)$")
  if not (what == "mass" or what == "inertia" or what == "com") then return nil end
  for _, b in ipairs(C.bodies) do
    if b.name == body then
      if b.welded then
        return string.format("body '%s' is welded to the world (no joint moves it): its mass, centre of mass and "
          .. "inertia are no parameters of world \"%s\" (docs/world.md, \"Parameters\")", body, C.name)
      end
      if what == "com" then
        return string.format("body '%s' is a lone free body whose spec puts its centre of mass at its origin: its "
          .. "generated closed form has no centre-of-mass terms, so its com is no parameter of world \"%s\" "
          .. "(docs/world.md, \"Parameters\"); give it a nonzero com in the spec to make it one", body, C.name)
      end
    end
  end
end

-- the parameters whose values M.check_param checks as a whole
M.CHECKED = { inertia = true }

-- Why the values `all` of world C's parameter `name` are invalid as a
-- whole, or nil: each moving body's inertia (6 per body, in the order of
-- world/step.lua's M.params) must be positive definite
function M.check_param(C, name, all)
  if name ~= "inertia" then return nil end
  -- the moving bodies in body order (world/step.lua's M.params)
  local j = 0
  for _, b in ipairs(C.bodies) do
    if not b.welded then
      local I = {}
      for k = 1, 6 do I[k] = all[6 * j + k] end
      local why = require("diagc.world.values").not_pd(b.name, I)
      if why then return why .. " (docs/world.md, \"Parameters\")" end
      j = j + 1
    end
  end
end

function M.state_names(C)
  check_names(C)
  local qn, vn = {}, {}
  for _, b in ipairs(moving_joints(C)) do
    for _, e in ipairs(Q_NAMES[b.joint.type]) do qn[#qn + 1] = b.joint.name .. "." .. e end
    for _, e in ipairs(V_NAMES[b.joint.type]) do vn[#vn + 1] = b.joint.name .. "." .. e end
  end
  return qn, vn
end

function M.groups(C)
  local g = {}
  for _, b in ipairs(moving_joints(C)) do g[#g + 1] = { name = b.joint.name, first = b.q0, size = b.nq } end
  return g
end

local function copy(dst, src, first, n)
  return string.format("for (int i = 0; i < %d; i++) %s[i] = %s[%d + i];", n, dst, src, first)
end

-- every port a world offers by name, in order: {label=, size=, elements=,
-- prereqs=, body= (cname -> C)}; indexed by label in C.signal_ports
local function all_ports(C, P)
  if C.signal_ports then return C.signal_ports end
  local list, by = {}, {}
  local function out(label, size, names, prereqs, body)
    local p = { label = label, name = label:gsub("%.", "_"), size = size, elements = names, prereqs = prereqs,
      body = body }
    list[#list + 1] = p
    by[label] = p
  end
  local rpy = C.pose == "rpy"
  for _, b in ipairs(C.bodies) do
    if not b.welded then
      local i = b.index - 1
      local exact = b.joint.type == "free" and b.joint.parent == 0 and not rpy
        and b.joint.xyz[1] == 0 and b.joint.xyz[2] == 0 and b.joint.xyz[3] == 0
        and b.joint.rpy[1] == 0 and b.joint.rpy[2] == 0 and b.joint.rpy[3] == 0
      out(b.name .. ".pose", rpy and 6 or 7,
        rpy and { "x", "y", "z", "roll", "pitch", "yaw" } or { "x", "y", "z", "qw", "qx", "qy", "qz" }, { "pos" },
        function(pn)
          return exact and copy(pn, "pos", b.q0, 7) or string.format(
            "double X[%d]; %skinematics(pos, X); %spose_of(X + %d, %d, %s);", 12 * C.nb, P, P, 12 * i, rpy and 1 or 0, pn)
        end)
      out(b.name .. ".velocity", 6, { "vx", "vy", "vz", "wx", "wy", "wz" }, { "pos", "vel" }, function(vname)
        return string.format("double X[%d], V[%d]; %skinematics(pos, X); %svelocities(pos, vel, X, V); "
          .. "%svelocity_of(X + %d, V + %d, %s);", 12 * C.nb, 6 * C.nb, P, P, P, 12 * i, 6 * i, vname)
      end)
    end
  end
  for _, b in ipairs(moving_joints(C)) do
    local j = b.joint
    out(j.name .. ".q", b.nq, b.nq > 1 and Q_NAMES[j.type] or nil, { "pos" },
      function(n) return copy(n, "pos", b.q0, b.nq) end)
    out(j.name .. ".v", b.nv, b.nv > 1 and V_NAMES[j.type] or nil, { "vel" },
      function(n) return copy(n, "vel", b.v0, b.nv) end)
  end
  -- the contacts of the step from the current state: their number, then
  -- per slot x y z (world), nx ny nz (unit, from the second shape to the
  -- first), depth, pn (the normal impulse the step applies); slots past
  -- the number are zero
  local K = #C.pairs > 0 and (C.max_contacts or 0) - (C.nlim_rows or 0) or 0
  if K > 0 then
    local names = { "n" }
    for k = 0, K - 1 do
      for _, e in ipairs(CONTACT) do names[#names + 1] = "c" .. k .. "." .. e end
    end
    out("contacts", 1 + 8 * K, names, { "work" }, function(pn)
      return string.format("const int n = work->status == 0 ? (int)work->info[0]%s : 0; %s[0] = n; "
        .. "for (int i = 0; i < %d; i++) { double *o = %s + 1 + 8 * i; if (i < n) { const diagc_contact *c = "
        .. "&work->con[i]; for (int r = 0; r < 3; r++) { o[r] = c->point[r]; o[3 + r] = c->normal[r]; } "
        .. "o[6] = c->depth; o[7] = work->x[3 * i]; } else { for (int r = 0; r < 8; r++) o[r] = 0.0; } }",
        (C.nlim_rows or 0) > 0 and " - work->nlim" or "", pn, K, pn)
    end)
  end
  C.signal_ports = { list = list, by = by }
  return C.signal_ports
end

-- the port named `label` ("ball.pose"), or nil
function M.port(C, P, label)
  return all_ports(C, P).by[label]
end

-- every port's label, in order (diagc info, "did you mean")
function M.labels(C)
  local l = {}
  for i, p in ipairs(all_ports(C, "").list) do l[i] = p.label end
  return l
end

-- pose_of(Xi, rpy, out): a body pose Xi (R row-major, p) as x y z and a
-- unit quaternion (Shepperd's method, w >= 0) or roll pitch yaw (R =
-- Rz(yaw) Ry(pitch) Rx(roll)); velocity_of(Xi, Vi, out): the body's
-- velocity (angular, linear at the world origin) as its origin's linear
-- velocity and its angular velocity
function M.emit(C, P)
  return (([[
static inline void @pose_of(const double *X, int rpy, double *o)
{
  const double *R = X;
  o[0] = X[9]; o[1] = X[10]; o[2] = X[11];
  if (rpy) {
    o[3] = atan2(R[7], R[8]);
    o[4] = atan2(-R[6], sqrt(R[7] * R[7] + R[8] * R[8]));
    o[5] = atan2(R[3], R[0]);
    return;
  }
  {
    const double tr = R[0] + R[4] + R[8];
    double w, x, y, z, s;
    if (tr > 0.0) {
      s = 2.0 * sqrt(tr + 1.0);
      w = 0.25 * s; x = (R[7] - R[5]) / s; y = (R[2] - R[6]) / s; z = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
      s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
      w = (R[7] - R[5]) / s; x = 0.25 * s; y = (R[1] + R[3]) / s; z = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
      s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
      w = (R[2] - R[6]) / s; x = (R[1] + R[3]) / s; y = 0.25 * s; z = (R[5] + R[7]) / s;
    } else {
      s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
      w = (R[3] - R[1]) / s; x = (R[2] + R[6]) / s; y = (R[5] + R[7]) / s; z = 0.25 * s;
    }
    if (w < 0.0) { w = -w; x = -x; y = -y; z = -z; }
    o[3] = w; o[4] = x; o[5] = y; o[6] = z;
  }
}

static inline void @velocity_of(const double *X, const double *V, double *o)
{
  o[0] = V[3] + V[1] * X[11] - V[2] * X[10];
  o[1] = V[4] + V[2] * X[9] - V[0] * X[11];
  o[2] = V[5] + V[0] * X[10] - V[1] * X[9];
  o[3] = V[0]; o[4] = V[1]; o[5] = V[2];
}
]]):gsub("@", P))
end

return M
