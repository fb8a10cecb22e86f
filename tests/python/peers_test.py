"""The package against diagc's own commands on the same models: the CSV of
`diagc run` (same integrator, parameters and initial state) equals
simulate's logs bit for bit, `diagc linearize --format json` equals
linearize's A, B, C, D, and `diagc test` (a Lua test file written here
that prints what the same calls return there, the model JIT-compiled by
TinyCC) gives the same derivatives, generated Jacobians (state,
parameter, periodic update), linearizations (both modes, an input, a
sampled loop in discrete time) and, for worlds, the step's Jacobians and
a rollout's gradients, with contact and friction; every value to 1e-13
relative (two compilers of the same C: cc and TinyCC; with gcc on x86-64
they agree bit for bit)."""
import csv
import io
import json
import os
import subprocess

import numpy as np

from harness import ROOT, close, done, spec, test, tmpdir

import diagc

DIAGC = os.path.join(ROOT, "bin", "diagc")
pend = diagc.build(spec("examples/pendulum.lua"))
tmp = tmpdir()


def cli(*args):
    return subprocess.run([DIAGC, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          check=True, timeout=120).stdout


@test
def simulate_equals_diagc_run():
    for integ in ("runge_kutta3", "radau5"):
        out = cli("run", spec("examples/pendulum.lua"), "--until", "2", "--integrator", integ,
                  "-p", "pend.damping=0.3", "--state", "pend.theta=1.25")
        rows = list(csv.reader(io.StringIO(out)))
        assert rows[0] == ["t", "pend.angle", "pend.energy"], rows[0]
        table = np.array([[float(x) for x in r] for r in rows[1:]])
        c = pend.context()
        c.set_param("pend.damping", 0.3)
        c.set_state("pend.theta", 1.25)
        logs = c.simulate(until=2.0, integrator=integ)
        for k, name in ((1, "pend.angle"), (2, "pend.energy")):
            assert np.array_equal(logs[name]["t"], table[:, 0]), "%s: %s's times" % (integ, name)
            assert np.array_equal(logs[name]["value"], table[:, k]), "%s: %s's values" % (integ, name)


TWO_RATES = """
local L = leaf "L" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
  output_port { "w", size = 2, prerequisites = { "z" }, calc = [[ w[0] = 2.0 * z[0]; w[1] = -z[0]; ]] },
}
return diagram "two" { system { "l", L }, log { "l.y", period = 0.1 }, log { "l.w", period = 0.25 } }
"""


@test
def loggers_at_two_rates_equal_diagc_run():
    # rows where only one logger fires: each logger gets its own rows
    path = os.path.join(tmp, "two.lua")
    with open(path, "w") as f:
        f.write(TWO_RATES)
    rows = list(csv.reader(io.StringIO(cli("run", path, "--until", "2"))))
    assert rows[0] == ["t", "l.y", "l.w[0]", "l.w[1]"], rows[0]
    logs = diagc.build(path).simulate(until=2.0)
    y = [(float(r[0]), float(r[1])) for r in rows[1:] if r[1]]
    w = [(float(r[0]), float(r[2]), float(r[3])) for r in rows[1:] if r[2]]
    assert len(y) == 21 and len(w) == 9, (len(y), len(w))
    assert np.array_equal(logs["l.y"]["t"], [a[0] for a in y]) and \
        np.array_equal(logs["l.y"]["value"], [a[1] for a in y]), "l.y"
    assert logs["l.w"]["value"].shape == (9, 2)
    assert np.array_equal(logs["l.w"]["t"], [a[0] for a in w]) and \
        np.array_equal(logs["l.w"]["value"], [a[1:] for a in w]), "l.w"


@test
def linearize_equals_diagc_linearize():
    for theta in (np.pi, 0.0):
        out = json.loads(cli("linearize", spec("examples/pendulum.lua"), "--state",
                             "pend.theta=%r" % theta, "--format", "json"))
        c = pend.context()
        c.set_state("pend.theta", theta)
        lin = c.linearize()
        for key in ("A", "C"):
            assert np.array_equal(np.array(out[key], dtype=float), getattr(lin, key)), (key, out[key])
        assert out["outputs"] == lin.outputs, (out["outputs"], lin.outputs)


LUA_HEAD = r"""
local function flat(x, acc)
  if type(x) == "table" then for _, y in ipairs(x) do flat(y, acc) end
  elseif type(x) == "number" then acc[#acc + 1] = string.format("%.17g", x) end
  return acc
end
local function out(key, x) print("@@ " .. key .. " " .. table.concat(flat(x, {}), " ")) end
"""


def diagc_test(name, body):
    """Runs a `diagc test` file whose one test is `body` (Lua, with
    out(key, value) printing a value); returns key -> flat array."""
    path = os.path.join(tmp, name + "_test.lua")
    with open(path, "w") as f:
        f.write(LUA_HEAD + 'test("%s", function()\n%s\nend)\n' % (name, body))
    res = subprocess.run([DIAGC, "test", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=300)
    assert res.returncode == 0, "diagc test %s: %s" % (name, res.stdout.strip().splitlines()[-3:])
    vals = {}
    for line in res.stdout.splitlines():
        if line.startswith("@@ "):
            key, *nums = line[3:].split(" ")
            vals[key] = np.array([float(x) for x in nums if x])
    return vals


def same(lua, key, py, what):
    """py (any shape; flattened row by row) equals diagc test's value."""
    py = np.ravel(np.asarray(py, dtype=float))
    ref = lua[key]
    assert py.shape == ref.shape, "%s %s: %d values, diagc test %d" % (what, key, py.size, ref.size)
    scale = max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
    close(py, ref, 1e-13 * scale, "%s %s against diagc test" % (what, key))


@test
def jacobians_and_linearize_equal_diagc_test():
    p, fo, dc = spec("examples/pendulum.lua"), spec("tests/python/first_order.lua"), \
        spec("examples/control/dc_motor_pi.lua")
    lua = diagc_test("jac", """
  local c = diagc.jit("%s"):context()
  c:set_param("pend.damping", 0.3)
  c:set_state("pend.theta", 1.25)
  c:set_state("pend.omega", -0.5)
  out("p_xdot", c:derivatives())
  out("p_jxc", c:state_jacobian())
  local l = c:linearize({ mode = "first_order_taylor" })
  for _, k in ipairs({ "A", "B", "C", "D", "f0", "y0" }) do out("p_" .. k, l[k]) end
  local f = diagc.jit("%s"):context()
  f:set_state("plant.x", 2.0)
  f:set_input("u", 0.25)
  out("f_jp", f:parameter_jacobian().J)
  local lf = f:linearize({ mode = "first_order_taylor" })
  for _, k in ipairs({ "A", "B", "C", "D", "f0", "y0" }) do out("f_" .. k, lf[k]) end
  local d = diagc.jit("%s"):context()
  d:set_state("motor.z", { 0.5, 20 })
  d:set_input("speed_ref", 30)
  out("d_ju", d:update_jacobian().J)
  d:set_state("motor.z", { 0, 0 })
  d:set_input("speed_ref", 0)
  local ld = d:linearize()
  for _, k in ipairs({ "A", "B", "C", "D" }) do out("d_" .. k, ld[k]) end
""" % (p, fo, dc))
    c = pend.context()
    c.set_param("pend.damping", 0.3)
    c.set_state("pend.theta", 1.25)
    c.set_state("pend.omega", -0.5)
    same(lua, "p_xdot", c.derivatives(), "pendulum")
    same(lua, "p_jxc", c.state_jacobian(), "pendulum")
    lin = c.linearize(mode="first_order_taylor")
    for k in ("A", "B", "C", "D", "f0", "y0"):
        same(lua, "p_" + k, getattr(lin, k), "pendulum taylor")
    f = diagc.build(fo).context()
    f.set_state("plant.x", 2.0)
    f.set_input("u", 0.25)
    same(lua, "f_jp", f.parameter_jacobian(), "first order")
    lf = f.linearize(mode="first_order_taylor")
    for k in ("A", "B", "C", "D", "f0", "y0"):
        same(lua, "f_" + k, getattr(lf, k), "first order taylor")
    d = diagc.build(dc).context()
    d.set_state("motor.z", [0.5, 20.0])
    d.set_input("speed_ref", 30.0)
    same(lua, "d_ju", d.update_jacobian(), "dc motor update")
    d.set_state("motor.z", [0.0, 0.0])
    d.set_input("speed_ref", 0.0)
    ld = d.linearize()
    assert ld.time_period == 1e-3, ld.time_period
    for k in ("A", "B", "C", "D"):
        same(lua, "d_" + k, getattr(ld, k), "dc motor loop (discrete)")


STEP_KEYS = ("pos_pos", "vel_pos", "pos_vel", "vel_vel", "force_pos", "force_vel", "mu_pos", "mu_vel", "T")


def world_peer(name, path, steps, effort, lq, lv, prepare_lua="", prepare=None):
    eff_lua = "" if effort is None else ", effort = { %s }" % ", ".join(
        "{ %s }" % ", ".join("%r" % x for x in row) for row in effort)
    lua = diagc_test(name, """
  local c = diagc.jit("%s"):context()
  %s
  local J = c:step_jacobians()
  for _, k in ipairs({ %s }) do if J[k] then out(k, J[k]) end end
  out("counts", { J.status, J.contacts, J.clamped, J.rank, J.kinks, J.bounces })
  local tr = c:rollout({ steps = %d%s })
  local g = tr:vjp({ %s }, { %s })
  for _, k in ipairs({ "q", "v", "effort", "mu" }) do out("g_" .. k, g[k]) end
""" % (path, prepare_lua, ", ".join('"%s"' % k for k in STEP_KEYS), steps, eff_lua,
       ", ".join(map(repr, lq)), ", ".join(map(repr, lv))))
    c = diagc.build(path).context()
    if prepare:
        prepare(c)
    J = c.step_jacobians()
    for k in STEP_KEYS:
        if k in lua:
            same(lua, k, J[k], name + " step")
    same(lua, "counts", [J[k] for k in ("status", "contacts", "clamped", "rank", "kinks", "bounces")], name)
    g = c.rollout(steps, effort=None if effort is None else np.array(effort)).vjp(lq, lv)
    for k in ("q", "v", "effort", "mu"):
        same(lua, "g_" + k, g[k], name + " vjp")
    return lua


@test
def world_gradients_equal_diagc_test():
    n = 30
    effort = [[0.5 + 0.1 * np.sin(0.3 * k)] for k in range(n)]

    def start(c):
        c.set_state("plant.pos", [0.1, 0.3])
        c.set_state("plant.vel", [0.2, -0.4])
    lua = world_peer("cart", spec("tests/python/cart_world.lua"), n, effort, [1.0, -2.0], [0.5, 3.0],
                     'c:set_state("plant.pos", { 0.1, 0.3 })\n  c:set_state("plant.vel", { 0.2, -0.4 })', start)
    assert lua["g_effort"].size == n and "vel_vel" in lua
    # contact and friction: a box resting on a slope (4 contacts, stuck)
    lua = world_peer("incline", spec("examples/world/incline.lua"), 20, None, [1.0, 0, 0, 0, 0, 0.5],
                     [0, 0, 1.0, 0, 0.2, 0])
    assert lua["counts"][1] > 0 and lua["g_mu"].size == 1 and "mu_vel" in lua, lua["counts"]


done()
