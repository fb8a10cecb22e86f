"""Worlds: the cart-pole world's step, its Jacobians against central
differences of the step (taken through step() on clones), reverse mode
through a rollout against central differences of the whole trajectory,
and the refusals (a NaN state, an unknown world, a connected effort, bad
steps and cotangents) with diagc's one line."""
import numpy as np

from harness import close, done, raises, spec, test

import diagc

cw = diagc.build(spec("tests/python/cart_world.lua"))
EPS = 1e-6


def start():
    c = cw.context()
    c.set_state("plant.pos", [0.1, 0.3])
    c.set_state("plant.vel", [0.2, -0.4])
    return c


def stepped(c, dpos=None, dvel=None, deff=None):
    d = c.clone()
    if dpos is not None:
        d.set_state("plant.pos", d.get_state("plant.pos") + dpos)
    if dvel is not None:
        d.set_state("plant.vel", d.get_state("plant.vel") + dvel)
    if deff is not None:
        d.set_input("plant.effort", d.get_input("plant.effort") + deff)
    q, v = d.step()
    return np.concatenate([q, v])


@test
def step_moves_the_state():
    c = start()
    q, v = c.step(effort=[0.5])
    close(c.get_state("plant.pos"), q, 0, "the context holds q'")
    # semi-implicit Euler on the cart: q' = q + dt v' (dt = 1e-3)
    close(q, np.array([0.1, 0.3]) + 1e-3 * v, 1e-15, "q' = q + dt v'")
    assert c.time == 0.0


@test
def step_jacobians_against_differences():
    c = start()
    J = c.step_jacobians()
    assert J["status"] == 0 and J["contacts"] == 0, (J["status"], J["contacts"])
    assert J["T"].shape == (4, 5), J["T"].shape           # 2 nv x (2 nv + nu + np), np = 0
    fd = np.zeros((4, 5))
    for j in range(2):
        e = np.eye(2)[j] * EPS
        fd[:, j] = (stepped(c, dpos=e) - stepped(c, dpos=-e)) / (2 * EPS)
        fd[:, 2 + j] = (stepped(c, dvel=e) - stepped(c, dvel=-e)) / (2 * EPS)
    fd[:, 4] = (stepped(c, deff=[EPS]) - stepped(c, deff=[-EPS])) / (2 * EPS)
    close(J["T"], fd, 1e-8, "T against central differences")
    close(J["vel_vel"], fd[2:, 2:4], 1e-8, "vel_vel")
    close(J["force_vel"], fd[2:, 4:5], 1e-8, "force_vel")
    close(J["pos_pos"], fd[:2, :2], 1e-8, "pos_pos")


@test
def rollout_vjp_against_differences():
    n = 40
    rng = np.random.default_rng(7)
    effort = rng.normal(size=(n, 1))
    lq, lv = np.array([1.0, -2.0]), np.array([0.5, 3.0])

    def loss(c, eff):
        for k in range(n):
            c.step(effort=eff[k])
        return lq @ c.get_state("plant.pos") + lv @ c.get_state("plant.vel")

    c = start()
    tr = c.rollout(n, effort=effort)
    assert tr.q.shape == (n + 1, 2) and tr.T.shape == (n, 4, 5), (tr.q.shape, tr.T.shape)
    g = tr.vjp(lq, lv)
    base = start()
    again = start()
    again.rollout(n, effort=effort)
    close(again.get_state("plant.pos"), tr.q[-1], 0, "the context ends at the final state")
    fd_v = np.zeros(2)
    for j in range(2):
        p, m = base.clone(), base.clone()
        p.set_state("plant.vel", p.get_state("plant.vel") + np.eye(2)[j] * EPS)
        m.set_state("plant.vel", m.get_state("plant.vel") - np.eye(2)[j] * EPS)
        fd_v[j] = (loss(p, effort) - loss(m, effort)) / (2 * EPS)
    close(g["v"], fd_v, 1e-7, "dL/dv0")
    for k in (0, n // 2, n - 1):
        ep, em = effort.copy(), effort.copy()
        ep[k] += EPS
        em[k] -= EPS
        close(g["effort"][k], [(loss(base.clone(), ep) - loss(base.clone(), em)) / (2 * EPS)], 1e-8,
              "dL/d effort[%d]" % k)
    # a function of (k, q, v) gives the same trajectory
    tr2 = start().rollout(n, effort=lambda k, q, v: effort[k])
    close(tr2.q, tr.q, 0, "effort as a function")


@test
def refusals():
    c = start()
    raises(lambda: c.set_state("plant.vel", [0.0, float("nan")]), "plant.vel: value 2 is nan")
    raises(lambda: c.step_jacobians(world="arm"), "no world named 'arm' in model cart_world (its worlds: plant)")
    raises(lambda: c.rollout(0), "rollout: steps must be a whole number from 1 to")
    raises(lambda: c.rollout(3, effort=np.zeros((2, 1))), "effort must have shape (steps, nu) = (3, 1)")
    tr = c.rollout(2)
    raises(lambda: tr.vjp([1.0], [0.0, 0.0]), "vjp: lq must be nv = 2 finite numbers")
    sm = diagc.build(spec("examples/spring_mass.lua"))
    raises(lambda: sm.context().step(), "model spring_mass has no world")
    pd = diagc.build(spec("examples/world/cartpole.lua"))
    raises(lambda: pd.context().step(effort=[1.0]), "the world's effort input is connected (to pd.force)")
    q, v = pd.context().step()      # driven by its controller
    assert np.all(np.isfinite(q))
    d = pd.context()
    d.set_param("pd.kp", 1e308)
    d.set_state("plant.pos", [1e10, 0.3])
    raises(lambda: d.step_jacobians(), "step_jacobians: plant.effort[0] (from pd.force) is", "the step needs a "
           "finite state and effort")


done()
