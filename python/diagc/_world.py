"""diagc._world: a world leaf's step, its Jacobians and reverse mode
through a trajectory (docs/world.md, "Gradients"; the same as `diagc test`'s
c:step_jacobians and c:rollout, testing/step_jacobians.lua, rollout.lua).

The world's cache entries are read through the descriptor: `work` begins
with the next state (q', v', info', imp'), `grad` with the blocks of its
Jacobians and T (2 nv x (2 nv + nu + np): rows q', v'; columns dq, dv in
tangent coordinates, the effort, the friction coefficients), then status,
contacts, clamped, rank, kinks, bounces (the fields of dcw_<name>_grad in
order, docs/world.md).  The sizes come from OUT.json (`diagc info --json`,
written by diagc.build).
"""
import ctypes as C

import numpy as np

from . import _c
from ._errors import DiagcError, as_floats, fail

# the most Jacobian entries a rollout keeps (as testing/rollout.lua)
MAX_ENTRIES = 10 ** 7


class World:
    """Sizes and names of one world leaf of a model."""

    def __init__(self, m, w):
        self.path = w["path"]
        self.nq, self.nv, self.np = w["nq"], w["nv"], w["pairs"]
        p = self.path
        self.nu, self.effort_from = 0, None
        for port in m.info.get("ports", []):
            if port.get("path") == p + ".effort" and port.get("direction") == "input":
                self.nu, self.effort_from = port["size"], port.get("from")
        self.ncol = 2 * self.nv + self.nu + self.np
        self.ninfo = m.sources[p + ".info"][2] if p + ".info" in m.sources else 0
        self.nimp = m.sources[p + ".imp"][2] if p + ".imp" in m.sources else 0
        self.has_grad = p + ".grad" in m.cache
        nn, nf = self.nv * self.nv, max(self.nv * self.nu, 1)
        self.grad_type = type("grad", (C.Structure,), {"_fields_": [
            ("pos_pos", C.c_double * nn), ("vel_pos", C.c_double * nn), ("pos_vel", C.c_double * nn),
            ("vel_vel", C.c_double * nn), ("force_pos", C.c_double * nf), ("force_vel", C.c_double * nf),
            ("T", C.c_double * (2 * self.nv * self.ncol))]
            + [(f, C.c_int) for f in ("status", "contacts", "clamped", "rank", "kinks", "bounces")]})


def find(ctx, world):
    m = ctx.model
    if m.info is None:
        fail("model %s has no description next to it (%s.json, from diagc info --json): worlds need it; "
             "build it with diagc.build", m.name, m.path[:-3])
    worlds = m.info.get("worlds", [])
    if not worlds:
        fail("model %s has no world", m.name)
    if world is None:
        if len(worlds) > 1:
            fail("model %s has several worlds (%s): name one", m.name, ", ".join(w["path"] for w in worlds))
        w = worlds[0]
    else:
        match = [w for w in worlds if w["path"] == world]
        if not match:
            fail("no world named '%s' in model %s (its worlds: %s)", world, m.name,
                 ", ".join(w["path"] for w in worlds))
        w = match[0]
    cache = m.__dict__.setdefault("_worlds", {})
    if w["path"] not in cache:
        cache[w["path"]] = World(m, w)
    return cache[w["path"]]


def _entry(ctx, name):
    m = ctx.model
    out = _c.c_double_p()
    rc = m.d.eval_cache(ctx.ptr, m.cache[name][0], C.byref(out))
    if rc != 0:
        fail("eval of %s failed with status %d (%s)", name, rc, _c.status_message(rc))
    return out


def _effort(ctx, W):
    if W.nu == 0:
        return None, None
    if ctx.model.sources.get(W.path + ".effort"):
        return ctx.get(W.path + ".effort"), W.path + ".effort"
    return ctx.eval(W.effort_from), W.effort_from


def _check_finite(ctx, W, api):
    groups = ["pos", "vel"] + (["imp"] if W.nimp and W.np else [])
    for g in groups:
        for i, x in enumerate(ctx.get(W.path + "." + g)):
            if not np.isfinite(x):
                fail("%s: %s.%s[%d] is %s; the step needs a finite state and effort", api, W.path, g, i, x)
    u, frm = _effort(ctx, W)
    for i, x in enumerate(u if u is not None else []):
        if not np.isfinite(x):
            src = "" if frm == W.path + ".effort" else " (from %s)" % frm
            fail("%s: %s.effort[%d]%s is %s; the step needs a finite state and effort", api, W.path, i, src, x)


def _set_effort(ctx, W, effort, api):
    if effort is None:
        return
    if W.nu == 0:
        fail("%s: world %s has no actuated joint, so no effort input; leave effort out", api, W.path)
    if W.path + ".effort" not in ctx.model.sources:
        fail("%s: the world's effort input is connected (to %s): fix it (fix_input) to drive it from Python",
             api, W.effort_from)
    try:
        ctx.set_input(W.path + ".effort", effort)
    except DiagcError as e:  # the setter's reason, said of this call (and step)
        fail("%s: %s", api, str(e)[len("diagc: "):])


def _advance(ctx, W):
    """Replace the world's state by its step's next state (the work entry)."""
    p = _entry(ctx, W.path + ".work")
    n = W.nq + W.nv + W.ninfo + W.nimp
    a = np.ctypeslib.as_array(p, shape=(n,)).copy()
    ctx.set_state(W.path + ".pos", a[:W.nq])
    ctx.set_state(W.path + ".vel", a[W.nq:W.nq + W.nv])
    if W.ninfo:
        ctx.set_state(W.path + ".info", a[W.nq + W.nv:W.nq + W.nv + W.ninfo])
    if W.nimp:
        ctx.set_state(W.path + ".imp", a[W.nq + W.nv + W.ninfo:])


def step(ctx, world=None, effort=None):
    """One step of the world leaf from the context's state (with `effort`
    set first, when given): the context then holds q', v' (time and the
    other systems as they were).  Returns (q', v')."""
    W = find(ctx, world)
    _set_effort(ctx, W, effort, "step")
    _check_finite(ctx, W, "step")
    _advance(ctx, W)
    return ctx.get(W.path + ".pos"), ctx.get(W.path + ".vel")


def _grad(ctx, W, api):
    if not W.has_grad:
        fail("%s: world %s has no Jacobians (it sets gradients = false)", api, W.path)
    _check_finite(ctx, W, api)
    g = C.cast(_entry(ctx, W.path + ".grad"), C.POINTER(W.grad_type)).contents
    T = np.ctypeslib.as_array(g.T).reshape(2 * W.nv, W.ncol).copy()
    return g, T


def step_jacobians(ctx, world=None):
    """The Jacobians of the world's step at the context's state (tangent
    coordinates): a dict of pos_pos, vel_pos, pos_vel, vel_vel (nv x nv),
    force_pos, force_vel (nv x nu), mu_pos, mu_vel (nv x np), T (all of
    them, 2 nv x ncol), status, contacts, clamped, rank, kinks, bounces."""
    W = find(ctx, world)
    g, T = _grad(ctx, W, "step_jacobians")
    nv, nu = W.nv, W.nu
    r = {"T": T, "pos_pos": T[:nv, :nv], "vel_pos": T[:nv, nv:2 * nv], "pos_vel": T[nv:, :nv],
         "vel_vel": T[nv:, nv:2 * nv], "force_pos": T[:nv, 2 * nv:2 * nv + nu],
         "force_vel": T[nv:, 2 * nv:2 * nv + nu], "mu_pos": T[:nv, 2 * nv + nu:],
         "mu_vel": T[nv:, 2 * nv + nu:]}
    for f in ("status", "contacts", "clamped", "rank", "kinks", "bounces"):
        r[f] = getattr(g, f)
    return r


class Trajectory:
    """N steps of a world: q (N+1 x nq), v (N+1 x nv) (the state before
    each step, then the final one), T (N x 2 nv x ncol: each step's
    Jacobians), kinks (the steps whose Jacobians report one)."""

    def __init__(self, W, q, v, T, kinks):
        self.world, self.q, self.v, self.T, self.kinks = W, q, v, T, kinks

    def vjp(self, lq, lv):
        """Reverse mode: for the cotangent (lq, lv) of the final state (nv
        numbers each, tangent coordinates), the gradients at the start
        {'q', 'v'}, of each step's effort {'effort': N x nu} and of the
        friction coefficients {'mu': np}."""
        W = self.world
        lam = []
        for name, x in (("lq", lq), ("lv", lv)):
            try:
                a = np.asarray(x, dtype=np.float64).reshape(-1)
            except (TypeError, ValueError):
                a = np.zeros(0)
            if a.size != W.nv:
                fail("vjp: %s must be nv = %d finite numbers (the cotangent of the final %s, tangent "
                     "coordinates%s), got shape %s", name, W.nv, "q" if name == "lq" else "v",
                     "; q itself has %d" % W.nq if W.nq != W.nv else "", np.shape(x))
            bad = np.flatnonzero(~np.isfinite(a))
            if bad.size:
                fail("vjp: %s[%d] is %s; the cotangent must be finite numbers", name, bad[0], a[bad[0]])
            lam.append(a)
        lam = np.concatenate(lam)
        nv, nu = W.nv, W.nu
        effort = np.zeros((len(self.T), nu))
        mu = np.zeros(W.np)
        for k in range(len(self.T) - 1, -1, -1):
            g = lam @ self.T[k]
            effort[k] = g[2 * nv:2 * nv + nu]
            mu += g[2 * nv + nu:]
            lam = g[:2 * nv]
        return {"q": lam[:nv], "v": lam[nv:], "effort": effort, "mu": mu}


def rollout(ctx, steps, effort=None, world=None):
    """`steps` steps of the world from the context's state, keeping each
    step's Jacobians; effort: None, an array (steps x nu) or a function
    (k, q, v) -> effort.  The context ends at the final state."""
    W = find(ctx, world)
    per = 2 * W.nv * W.ncol
    most = max(1, MAX_ENTRIES // max(per, 1))
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or not 1 <= steps <= most:
        fail("rollout: steps must be a whole number from 1 to %d (world %s keeps %d Jacobian entries per "
             "step, at most %d in all), got %r", most, W.path, per, MAX_ENTRIES, steps)
    if effort is not None and not callable(effort):
        e = as_floats(effort, "rollout: effort")
        if e.shape not in ((steps, W.nu),) + (((steps,),) if W.nu == 1 else ()):
            fail("rollout: effort must have shape (steps, nu) = (%d, %d), got %s", steps, W.nu, e.shape)
        effort = e.reshape(steps, W.nu)
    q, v, T, kinks = np.zeros((steps + 1, W.nq)), np.zeros((steps + 1, W.nv)), np.zeros((steps,) + (2 * W.nv, W.ncol)), []
    for k in range(steps):
        q[k], v[k] = ctx.get(W.path + ".pos"), ctx.get(W.path + ".vel")
        if effort is not None:
            _set_effort(ctx, W, effort(k, q[k].copy(), v[k].copy()) if callable(effort) else effort[k],
                        "rollout: at step %d" % k)
        g, T[k] = _grad(ctx, W, "rollout: at step %d" % k)
        if g.status != 0:
            fail("rollout: step %d failed with status %d (%s)", k, g.status, _c.status_message(g.status))
        if g.kinks > 0:
            kinks.append(k)
        _advance(ctx, W)
    q[steps], v[steps] = ctx.get(W.path + ".pos"), ctx.get(W.path + ".vel")
    for name, a in (("pos", q[steps]), ("vel", v[steps])):
        bad = np.flatnonzero(~np.isfinite(a))
        if bad.size:
            fail("rollout: after step %d, %s.%s[%d] is %s", steps, W.path, name, bad[0], a[bad[0]])
    return Trajectory(W, q, v, T, kinks)
