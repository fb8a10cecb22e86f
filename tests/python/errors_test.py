"""Bad input, function by function: for every call of the package that
takes values, names or shapes, each class of bad input (a wrong shape,
an unknown name, a NaN or infinite value, a value that is not a number)
raises DiagcError with diagc's one line naming the value, and changes
nothing."""
import numpy as np

from harness import close, done, raises, spec, test

import diagc

fo = diagc.build(spec("tests/python/first_order.lua"))      # x' = -a x + b u, exported u and y
cw = diagc.build(spec("tests/python/cart_world.lua"))       # a world, effort fixed
NAN, INF = float("nan"), float("inf")


@test
def context_setters():
    c = fo.context()
    for setter, name, n in ((c.set_param, "plant.a", 1), (c.set_state, "plant.x", 1), (c.set_input, "u", 1)):
        raises(lambda: setter(name, [1.0, 2.0]), "%s: it has %d value, got an array of shape (2,)" % (name, n))
        raises(lambda: setter(name, NAN), "%s: value 1 is nan; give finite numbers" % name)
        raises(lambda: setter(name, -INF), "%s: value 1 is -inf" % name)
        raises(lambda: setter(name, None), "%s: expects 1 number, got None" % name)
        raises(lambda: setter(name, "1.5"), "%s: expects 1 number, got '1.5'" % name)
    raises(lambda: c.set_param("plant.aa", 1.0), "no parameter named 'plant.aa' in model first_order",
           "did you mean 'plant.a'?")
    raises(lambda: c.set_state("plant.xx", 1.0), "no state named 'plant.xx'", "did you mean 'plant.x'?")
    raises(lambda: c.set_input("uu", 1.0), "no input named 'uu'", "did you mean 'u'?")
    raises(lambda: c.get_param("plant.aa"), "no parameter named 'plant.aa'")
    raises(lambda: c.eval("plant.yy"), "no output port or cache entry named 'plant.yy'", "did you mean 'plant.y'?")
    raises(lambda: setattr(c, "xc", [NAN]), "xc: value 1 is nan")
    raises(lambda: setattr(c, "time", "x"), "time must be a number, got 'x'")
    raises(lambda: setattr(c, "time", NAN), "time: nan is not finite")
    close(c.get_param("plant.a"), [3.0], 0, "a unchanged")
    close(c.get_state("plant.x"), [2.0], 0, "x unchanged")
    assert c.time == 0.0


@test
def simulate_and_linearize():
    c = fo.context()
    raises(lambda: c.simulate(until="x"), "simulate: until must be a number, got 'x'")
    raises(lambda: c.simulate(until=INF), "until = inf is not a finite time")
    raises(lambda: c.simulate(until=1.0, max_step=NAN), "max_step must be a finite number >= 0")
    raises(lambda: c.simulate(until=1.0, max_steps=0), "max_steps must be a whole number >= 1")
    raises(lambda: c.simulate(until=1.0, integrater="rk4"), "no option 'integrater'")
    raises(lambda: c.linearize(input="v"), "input 'v' is not one of the model's inputs (u)")
    raises(lambda: c.linearize(tolerance="x"), "linearize: tolerance must be a number, got 'x'")
    raises(lambda: c.linearize(tolerance=NAN), "tolerance must be a finite number > 0")
    raises(lambda: c.linearize(jacobian="ad"), "jacobian must be 'model' or 'fd', got 'ad'")
    raises(lambda: c.update_jacobian(3), "the model has 0 periodic update timings; k = 3 is not one")
    assert c.time == 0.0


@test
def batch_arguments():
    raises(lambda: fo.batch("x", runs=1), "batch: t_final must be a number, got 'x'")
    raises(lambda: fo.batch(1.0, set={"plant.aa": [1.0]}), "set: no numeric state, parameter or input named "
           "'plant.aa'", "did you mean 'plant.a'?")
    raises(lambda: fo.batch(1.0, set={"plant.a": ["x", "y"]}), "batch: set['plant.a'] must be numbers")
    raises(lambda: fo.batch(1.0, set={"plant.a": [1.0, INF]}), "set['plant.a'] at (1, 0) is inf")
    u = np.zeros((2, 3, 1))
    raises(lambda: fo.batch(1.0, inputs={"u": np.zeros((2, 3, 2))}, sample_period=0.1),
           "inputs['u'] must have shape (2, 3, 1) (runs x samples x its 1 element), got (2, 3, 2)")
    raises(lambda: fo.batch(1.0, inputs={"uu": u}, sample_period=0.1), "inputs: no numeric state, parameter or "
           "input named 'uu'", "did you mean 'u'?")
    raises(lambda: fo.batch(1.0, inputs={"u": np.full((2, 3, 1), NAN)}, sample_period=0.1),
           "inputs['u'] at (0, 0, 0) is nan")
    raises(lambda: fo.batch(1.0, inputs={"u": u}, sample_period=0), "sample_period must be a finite time > 0")
    raises(lambda: fo.batch(1.0, runs=1, context=cw.context()), "context= is a context of model cart_world, "
           "not of first_order")
    n = cw.d.nxd
    raises(lambda: cw.batch(0.01, runs=2, cotangent=np.zeros((2, 3))), "cotangent must be runs x nxd = (2, %d)" % n,
           "got shape (2, 3)")
    raises(lambda: cw.batch(0.01, runs=2, cotangent=np.full((2, n), NAN)), "cotangent at (0, 0) is nan")
    raises(lambda: cw.batch(0.01, runs=2, cotangent="abc"), "cotangent must be an array")


@test
def world_calls():
    c = cw.context()
    raises(lambda: c.step(effort=[1.0, 2.0]), "step: plant.effort: it has 1 value, got an array of shape (2,)")
    raises(lambda: c.step(effort=[NAN]), "step: plant.effort: value 1 is nan")
    raises(lambda: c.step(world="nope"), "no world named 'nope' in model cart_world (its worlds: plant)")
    raises(lambda: c.step_jacobians(world="nope"), "no world named 'nope'")
    raises(lambda: c.rollout(3, effort="ab"), "rollout: effort must be numbers, got 'ab'")
    raises(lambda: c.rollout(3, effort=np.zeros((3, 2))), "effort must have shape (steps, nu) = (3, 1)")
    raises(lambda: c.rollout(3, effort=np.array([[0.0], [NAN], [0.0]])), "rollout: at step 1: plant.effort: "
           "value 1 is nan")
    raises(lambda: c.rollout(3, effort=lambda k, q, v: [INF]), "rollout: at step 0: plant.effort: value 1 is inf")
    raises(lambda: c.rollout(2.5), "steps must be a whole number")
    tr = c.rollout(2)
    raises(lambda: tr.vjp([1.0, 0.0, 0.0], [0.0, 0.0]), "vjp: lq must be nv = 2 finite numbers", "got shape (3,)")
    raises(lambda: tr.vjp([1.0, 0.0], [0.0, NAN]), "vjp: lv[1] is nan; the cotangent must be finite numbers")
    raises(lambda: tr.vjp("ab", [0.0, 0.0]), "vjp: lq must be nv = 2 finite numbers")
    raises(lambda: c.set_param("plant.nope", 1.0), "no parameter named 'plant.nope' in model cart_world")


done()
