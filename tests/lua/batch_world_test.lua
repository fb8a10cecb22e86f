-- The C batch (diagc/batch.h) on a world: a cartpole under a force
-- sequence, 7 runs from other initial states.  Each run's final state and
-- log are bit for bit those of a single simulator running it (the Lua
-- API, sim:advance_to sample by sample), with 1 and 3 threads; its VJP
-- (the cotangent of the final q and v pulled back through 100 steps'
-- update Jacobians) equals traj:vjp of c:rollout, the world's own
-- reverse mode (docs/world.md, "Reverse mode"), to 1e-12; the rollout
-- drives a fixed effort input, the batch an exported one (the inputs'
-- gradients are the exported inputs'), and both.
local ffi = require("ffi")
local dsl = diagc.dsl
local dffi = require("diagc.testing.ffi")
local dt, K, R = 1e-3, 100, 7

-- fixed: the effort a fixed input (as c:rollout needs), else exported
local function cartpole(fixed)
  return diagc.jit(dsl.diagram "cp" {
    dsl.system { "w", dsl.world "cartpole" { time_step = dt,
      dsl.body { "cart", mass = 1, inertia = { 0.01, 0.01, 0.01 },
        joint = { "prismatic", axis = { 1, 0, 0 }, actuated = true } },
      dsl.body { "pole", mass = 0.1, com = { 0, 0, -0.5 }, inertia = { 1e-6, 1e-6, 1e-6 },
        joint = { "revolute", parent = "cart", axis = { 0, 1, 0 }, damping = 0.01, q = { 0.3 } } } } },
    fixed and dsl.fix_input { "w.effort", value = { 0 } } or dsl.export_input { "w.effort", as = "force" },
    dsl.log { "w.position", period = 1e-2 } })
end

local function force(i, k) return 0.5 * math.sin(0.05 * k + i) end
local function q0(i) return { 0.1 * i, 0.3 - 0.05 * i } end
local function v0(i) return { 0.2, -0.1 * i } end

-- the batch: pos and vel set per run, the force as a sequence
local function batch(m, jobs, cot)
  local C = ffi.C
  dffi.header(require("diagc_host").include_dir(), "batch.h")
  local d = m.desc
  local err = ffi.new("char[256]")
  local b = C.diagc_batch_create(d, nil, jobs, err, 256)
  assert(b ~= nil, ffi.string(err))
  b = ffi.gc(b, C.diagc_batch_destroy)
  local set = ffi.new("int[2]", m.source_index["w.pos"], m.source_index["w.vel"])
  local seq = ffi.new("int[1]", m.source_index["force"] or m.source_index["w.effort"])
  local sv, qv = ffi.new("double[?]", R * 4), ffi.new("double[?]", R * K)
  for i = 0, R - 1 do
    local q, v = q0(i), v0(i)
    sv[4 * i], sv[4 * i + 1], sv[4 * i + 2], sv[4 * i + 3] = q[1], q[2], v[1], v[2]
    for k = 0, K - 1 do qv[i * K + k] = force(i, k) end
  end
  local lw = C.diagc_batch_log_width(d)
  local rows = 20
  local o = { t = ffi.new("double[?]", R * rows), values = ffi.new("double[?]", R * rows * lw),
    rows = ffi.new("int[?]", R), status = ffi.new("int[?]", R), fs = ffi.new("double[?]", R * d.nxd),
    gs = ffi.new("double[?]", R * d.nxd), gu = ffi.new("double[?]", R * K) }
  local j = ffi.new("diagc_batch_job")
  j.n_runs, j.t_final = R, K * dt
  j.n_set, j.set, j.set_values = 2, set, sv
  j.n_seq, j.seq, j.n_samples, j.sample_period, j.seq_values = 1, seq, K, dt, qv
  j.max_rows, j.t, j.values, j.rows, j.status, j.final_state = rows, o.t, o.values, o.rows, o.status, o.fs
  if cot then j.cotangent, j.grad_state, j.grad_inputs, j.vjp_steps = cot, o.gs, o.gu, K end
  local rc = C.diagc_batch_run(b, j, err, 256)
  assert(rc == 0, ffi.string(err))
  o.lw, o.nrows = lw, rows
  return o
end

-- the xd elements of w.pos and w.vel (the cotangent's and gradient's rows)
local function xd_index(m, name, e)
  local s = m.sources[name]
  return (tonumber(s.offset) - tonumber(m.desc.xd_offset)) / 8 + e
end

test("batch_world.same_as_single_runs", function()
  local m = cartpole()
  local d = m.desc
  local one, three = batch(m, 1, nil), batch(m, 3, nil)
  for i = 0, R - 1 do
    local sim = m:simulator()
    sim.context:set("w.pos", q0(i))
    sim.context:set("w.vel", v0(i))
    sim.context:set("force", force(i, 0))
    assert(sim:initialize() == 0)
    for k = 1, K - 1 do
      assert(sim:advance_to(k * dt) == 0)
      sim.context:set("force", force(i, k))
    end
    assert(sim:advance_to(K * dt) == 0)
    local xd = ffi.cast("const double *", ffi.cast("const char *", sim.context.ptr) + d.xd_offset)
    for e = 0, d.nxd - 1 do
      assert(one.status[i] == 0 and three.status[i] == 0, "status")
      -- bit for bit (NaN-free: == is enough)
      assert(one.fs[i * d.nxd + e] == xd[e], string.format("run %d xd[%d]: %.17g vs %.17g", i, e,
        one.fs[i * d.nxd + e], xd[e]))
      assert(three.fs[i * d.nxd + e] == xd[e], "3 threads")
    end
    local log = sim:log("w.position")
    assert(#log.t == one.rows[i] and #log.t == 11, "rows " .. #log.t .. " " .. one.rows[i])
    for r = 1, #log.t do
      assert(log.t[r] == one.t[i * one.nrows + r - 1])
      for e = 1, 2 do
        assert(log.v[r][e] == one.values[(i * one.nrows + r - 1) * one.lw + e - 1])
        assert(log.v[r][e] == three.values[(i * one.nrows + r - 1) * one.lw + e - 1])
      end
    end
  end
end)

test("batch_world.vjp_is_rollout_vjp", function()
  local m, fixed = cartpole(), cartpole(true)
  local d = m.desc
  local lq, lv = { 0.3, -0.7 }, { 1.1, 0.4 }
  local cot = ffi.new("double[?]", R * d.nxd)
  for i = 0, R - 1 do
    for e = 0, 1 do
      cot[i * d.nxd + xd_index(m, "w.pos", e)] = lq[e + 1]
      cot[i * d.nxd + xd_index(m, "w.vel", e)] = lv[e + 1]
    end
  end
  local o = batch(m, 2, cot)
  local nu = d.jac_updates[0].ncol - d.nxd
  assert(nu == 1, "one input element")
  for i = 0, R - 1 do
    assert(o.status[i] == 0, "status " .. o.status[i])
    local c = fixed:context()
    c:set("w.pos", q0(i))
    c:set("w.vel", v0(i))
    local traj = c:rollout({ steps = K, effort = function(k) return { force(i, k - 1) } end })
    local g = traj:vjp(lq, lv)
    for e = 0, 1 do
      near(o.gs[i * d.nxd + xd_index(m, "w.pos", e)], g.q[e + 1], { rtol = 1e-12, atol = 1e-13 })
      near(o.gs[i * d.nxd + xd_index(m, "w.vel", e)], g.v[e + 1], { rtol = 1e-12, atol = 1e-13 })
    end
    for k = 0, K - 1 do near(o.gu[i * K + k], g.effort[k + 1][1], { rtol = 1e-12, atol = 1e-13 }) end
  end
end)

-- the same VJP with the force a fixed input of the model (a sequence on
-- the fixed input source: no exported input, so no input gradients)
test("batch_world.vjp_fixed_input", function()
  local m = cartpole(true)
  local d = m.desc
  local lq, lv = { -0.2, 0.5 }, { 0.1, 0.9 }
  local cot = ffi.new("double[?]", R * d.nxd)
  for i = 0, R - 1 do
    for e = 0, 1 do
      cot[i * d.nxd + xd_index(m, "w.pos", e)] = lq[e + 1]
      cot[i * d.nxd + xd_index(m, "w.vel", e)] = lv[e + 1]
    end
  end
  local o = batch(m, 3, cot)
  for i = 0, R - 1 do
    local c = m:context()
    c:set("w.pos", q0(i))
    c:set("w.vel", v0(i))
    local g = c:rollout({ steps = K, effort = function(k) return { force(i, k - 1) } end }):vjp(lq, lv)
    for e = 0, 1 do
      near(o.gs[i * d.nxd + xd_index(m, "w.pos", e)], g.q[e + 1], { rtol = 1e-12, atol = 1e-13 })
      near(o.gs[i * d.nxd + xd_index(m, "w.vel", e)], g.v[e + 1], { rtol = 1e-12, atol = 1e-13 })
    end
  end
end)
