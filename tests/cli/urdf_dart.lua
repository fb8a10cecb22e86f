-- tests/cli/urdf_dart.lua (run by urdf_dart.sh through `diagc test`): the
-- five robots of examples/robots imported by diagc against DART 6.12's
-- URDF loader on the same unmodified files (tests/cli/urdf_dart.cpp, built
-- by urdf_dart.sh; its path in DIAGC_URDF_DART).  At 20 seeded random
-- states per robot: the mass matrix, the bias (Coriolis + gravity +
-- joint damping) and the forward dynamics at zero effort agree to 1e-9
-- relative (to the largest entry of each), every body's world frame to
-- 1e-12.  A floating base's coordinates differ (diagc: linear velocity in
-- the world, angular in the body, MuJoCo's convention; DART: both in the
-- body frame), so DART's values are mapped to diagc's coordinates:
-- v_dart = P v with P = [0 I; R^T 0], M = P^T M_dart P,
-- c = P^T (c_dart + M_dart dP v), dP v = [0; -w x (R^T v_lin)].
local S = dofile("tests/lua/world_support.lua")
local rng = dofile("tests/lua/fuzz_rng.lua")
local check = require("diagc.world.check")

local DART = os.getenv("DIAGC_URDF_DART")
local ROBOTS = diagc.root .. "/examples/robots"
local N_STATES = 20

local function world_of(file, base)
  local loc = { file = ROBOTS .. "/here.lua", line = 1 }
  return { _kind = "world", name = "W", loc = loc, settings = { gradients = false },
    items = { { _item = "urdf", loc = loc, args = { file, base = base, collisions = false } } } }
end

local function quat_matrix(w, x, y, z)
  return { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) }
end

-- random states in diagc's coordinates: joint angles in [-pi, pi] (prismatic
-- in [-0.05, 0.05] m), speeds in [-2, 2]; a floating base anywhere near the
-- origin with a random unit quaternion
local function states(C, robot, seed)
  local r = rng(seed)
  local out = {}
  for s = 1, N_STATES do
    local q, v = {}, {}
    for i, b in ipairs(C.bodies) do
      local t = b.joint.type
      if t == "revolute" then q[b.q0 + 1], v[b.v0 + 1] = r(-math.pi, math.pi), r(-2, 2)
      elseif t == "prismatic" then q[b.q0 + 1], v[b.v0 + 1] = r(-0.05, 0.05), r(-0.5, 0.5)
      elseif t == "free" then
        local a = { r(-1, 1), r(-1, 1), r(-1, 1), r(-1, 1) }
        local n = math.sqrt(a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2 + a[4] ^ 2)
        for k = 1, 3 do q[b.q0 + k] = r(-1, 1) end
        for k = 1, 4 do q[b.q0 + 3 + k] = a[k] / n end
        for k = 1, 6 do v[b.v0 + k] = r(-2, 2) end
      end
      assert(t ~= "ball", "body " .. i)
    end
    out[s] = { q = q, v = v }
  end
  return out
end

-- DART's input for the states: per URDF joint, its q and v
local function dart_input(C, robot, list)
  local by = {}
  for _, b in ipairs(C.bodies) do by[b.name] = b end
  local L = {}
  for _, st in ipairs(list) do
    L[#L + 1] = "state"
    for _, j in ipairs(robot.joints) do
      local b = by[j.body]
      if j.type == "floating" then
        local q, v = st.q, st.v
        L[#L + 1] = string.format("free %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g",
          q[b.q0 + 1], q[b.q0 + 2], q[b.q0 + 3], q[b.q0 + 4], q[b.q0 + 5], q[b.q0 + 6], q[b.q0 + 7],
          v[b.v0 + 1], v[b.v0 + 2], v[b.v0 + 3], v[b.v0 + 4], v[b.v0 + 5], v[b.v0 + 6])
      else
        L[#L + 1] = string.format("j %s %.17g %.17g", j.name, st.q[b.q0 + 1], st.v[b.v0 + 1])
      end
    end
    L[#L + 1] = "end"
  end
  return table.concat(L, "\n") .. "\n"
end

local function run_dart(file, floating, input)
  local tmp = os.tmpname()
  local f = assert(io.open(tmp, "w"))
  f:write(input)
  f:close()
  local p = assert(io.popen(string.format("%s %s %s < %s 2>/dev/null", DART, file, floating and "floating" or "fixed",
    tmp)))
  local text = p:read("*a")
  p:close()
  os.remove(tmp)
  local results, cur = {}, nil
  for line in text:gmatch("[^\n]+") do
    local w = line:match("^(%S+)")
    local rest = {}
    for x in line:gmatch("%S+") do rest[#rest + 1] = x end
    if w == "dofs" then cur = { dofs = {}, poses = {} }
    elseif w == "dof" then cur.dofs[#cur.dofs + 1] = { joint = rest[2], k = tonumber(rest[3]) }
    elseif w == "M" or w == "c" or w == "a" then
      local t = {}
      for i = 2, #rest do t[i - 1] = tonumber(rest[i]) end
      cur[w] = t
    elseif w == "pose" then
      local t = {}
      for i = 3, #rest do t[i - 2] = tonumber(rest[i]) end
      cur.poses[rest[2]] = t
    elseif w == "done" then results[#results + 1] = cur end
  end
  return results
end

local function maxabs(t)
  local m = 0
  for _, x in ipairs(t) do m = math.max(m, math.abs(x)) end
  return m
end

-- |got - want| <= tol * max(1, max |want|), entry by entry
local function close(got, want, tol, what)
  local scale = math.max(1, maxabs(want))
  for i = 1, #want do
    local d = math.abs(got[i] - want[i])
    if not (d <= tol * scale) then
      error(string.format("%s[%d]: diagc %.17g, DART %.17g (difference %.3g, tolerance %.3g)", what, i, got[i],
        want[i], d, tol * scale), 0)
    end
  end
end

local function oracle(name, file, base, seed)
  test("urdf_dart." .. name, function()
    assert(DART, "DIAGC_URDF_DART is not set: run tests/cli/urdf_dart.sh, which builds the DART program")
    local C = check.check(world_of(file, base))
    local robot = C.robots[1]
    local w = S.compile(C, "u_" .. name)
    local nv = C.nv
    -- diagc dof of each (URDF joint, index within it); DART names its
    -- free root joint itself, so the floating joint is the one DART joint
    -- whose name is not a URDF joint's
    local by = {}
    for _, b in ipairs(C.bodies) do by[b.name] = b end
    local dof_of, free_body = {}, nil
    for _, j in ipairs(robot.joints) do
      if j.type == "floating" then free_body = by[j.body] else dof_of[j.name] = by[j.body].v0 end
    end
    local list = states(C, robot, seed)
    local res = run_dart(ROBOTS .. "/" .. file, base == "free", dart_input(C, robot, list))
    eq(#res, N_STATES, "DART answered every state")
    for s, st in ipairs(list) do
      local d = res[s]
      eq(#d.dofs, nv, "as many dofs as diagc")
      -- perm[i] = the diagc dof (0-based) of DART dof i (1-based), for the joints
      local perm = {}
      for i, x in ipairs(d.dofs) do perm[i] = dof_of[x.joint] end
      local Md, cd, ad = {}, {}, {}
      for i = 1, nv do
        Md[i] = {}
        for j = 1, nv do Md[i][j] = d.M[(i - 1) * nv + j] end
        cd[i], ad[i] = d.c[i], d.a[i]
      end
      -- T: diagc v = T v_dart; the transform of M, c and a (free base: P^-1)
      local Mw, cw, aw = {}, {}, {}
      local T = {} -- T[k] = { {dart index, factor}, ... } for diagc dof k (0-based)
      for i = 1, nv do
        if perm[i] then T[perm[i]] = { { i, 1 } } end
      end
      local extra = {} -- dP v in DART's coordinates
      for i = 1, nv do extra[i] = 0 end
      if free_body then
        local q, v, o = st.q, st.v, free_body.q0
        local R = quat_matrix(q[o + 4], q[o + 5], q[o + 6], q[o + 7])
        -- DART free dofs: the first 6 of its root joint, [w_body; v_body]
        local fd = {}
        for i, x in ipairs(d.dofs) do
          if not perm[i] then fd[#fd + 1] = i end
        end
        eq(#fd, 6, "six free dofs in DART")
        local b0 = free_body.v0
        -- diagc v_lin (world) = R v_body; diagc w (body) = w_body
        for r = 1, 3 do
          T[b0 + r - 1] = { { fd[4], R[3 * (r - 1) + 1] }, { fd[5], R[3 * (r - 1) + 2] }, { fd[6], R[3 * (r - 1) + 3] } }
          T[b0 + 3 + r - 1] = { { fd[r], 1 } }
        end
        local vl = { v[b0 + 1], v[b0 + 2], v[b0 + 3] }
        local w_ = { v[b0 + 4], v[b0 + 5], v[b0 + 6] }
        local vb = { R[1] * vl[1] + R[4] * vl[2] + R[7] * vl[3], R[2] * vl[1] + R[5] * vl[2] + R[8] * vl[3],
          R[3] * vl[1] + R[6] * vl[2] + R[9] * vl[3] }
        local wx = { w_[2] * vb[3] - w_[3] * vb[2], w_[3] * vb[1] - w_[1] * vb[3], w_[1] * vb[2] - w_[2] * vb[1] }
        for r = 1, 3 do extra[fd[3 + r]] = -wx[r] end
      end
      -- P[i][k]: v_dart[i] = sum_k P[i][k] v[k]; P^T from T (T = P^-1, and
      -- P = [0 I; R^T 0] is orthogonal in the free block, so P = T^T)
      local P = {}
      for i = 1, nv do P[i] = {} ; for k = 0, nv - 1 do P[i][k] = 0 end end
      for k = 0, nv - 1 do
        for _, e in ipairs(T[k]) do P[e[1]][k] = e[2] end
      end
      local Mdx = {}
      for i = 1, nv do
        local s_ = cd[i]
        for j = 1, nv do s_ = s_ + Md[i][j] * extra[j] end
        Mdx[i] = s_
      end
      for k = 0, nv - 1 do
        Mw[k] = {}
        for l = 0, nv - 1 do
          local s_ = 0
          for i = 1, nv do
            if P[i][k] ~= 0 then
              for j = 1, nv do s_ = s_ + P[i][k] * Md[i][j] * P[j][l] end
            end
          end
          Mw[k][l] = s_
        end
        local s_ = 0
        for i = 1, nv do s_ = s_ + P[i][k] * Mdx[i] end
        cw[k] = s_
        -- a = T (a_dart - dP v)
        local a_ = 0
        for _, e in ipairs(T[k]) do a_ = a_ + e[2] * (ad[e[1]] - extra[e[1]]) end
        aw[k] = a_
      end
      local Mg = S.mass(w, st.q)
      local gotM, wantM, gotc, wantc, gota, wanta = {}, {}, {}, {}, {}, {}
      for k = 0, nv - 1 do
        for l = 0, nv - 1 do gotM[#gotM + 1], wantM[#wantM + 1] = Mg[k + 1][l + 1], Mw[k][l] end
      end
      close(gotM, wantM, 1e-9, name .. " state " .. s .. " M")
      local cg = S.bias(w, st.q, st.v)
      for k = 0, nv - 1 do gotc[k + 1], wantc[k + 1] = cg[k + 1], cw[k] end
      close(gotc, wantc, 1e-9, name .. " state " .. s .. " bias")
      local acc = S.arr(nv)
      local zero = S.arr(nv)
      w.fn.accel(S.arr(C.nq, st.q), S.arr(nv, st.v), zero, acc)
      for k = 0, nv - 1 do gota[k + 1], wanta[k + 1] = acc[k], aw[k] end
      close(gota, wanta, 1e-9, name .. " state " .. s .. " forward dynamics")
      local X = S.poses(w, st.q)
      local n = 0
      for i, b in ipairs(C.bodies) do
        local want = d.poses[b.name]
        if want then
          local got = { unpack(X, 12 * (i - 1) + 1, 12 * i) }
          close(got, want, 1e-12, name .. " state " .. s .. " pose of " .. b.name)
          n = n + 1
        end
      end
      eq(n, #C.bodies, "every body's frame compared")
    end
  end)
end

oracle("ur5", "ur5/ur5_robot.urdf", "fixed", 5)
oracle("panda", "panda/panda.urdf", "fixed", 7)
oracle("iiwa", "iiwa/iiwa14_spheres_collision.urdf", "fixed", 14)
oracle("a1", "a1/a1.urdf", "free", 1)
oracle("atlas", "atlas/atlas_minimal_contact.urdf", "free", 36)
