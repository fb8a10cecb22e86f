"""Contexts: time, state, parameters and inputs by name as NumPy arrays,
outputs and derivatives against the spec's formulas; clones are
independent; bad names, shapes and values raise DiagcError."""
import numpy as np

from harness import close, done, raises, spec, test

import diagc

sm = diagc.build(spec("examples/spring_mass.lua"))
fo = diagc.build(spec("tests/python/first_order.lua"))


@test
def defaults():
    c = sm.context()
    assert c.time == 0.0
    close(c.get_state("spring.q"), [1.0], 0, "q0")
    close(c.get_state("spring.velocity"), [0.0], 0, "v0 by element")
    close(c.get_param("spring.stiffness"), [1.0], 0, "k")
    assert isinstance(c.get_param("spring.mass"), np.ndarray)


@test
def set_and_get():
    c = sm.context()
    c.time = 2.5
    c.set_state("spring.q", [0.5])
    c.set_state("spring.velocity", 3.0)
    c.set_param("spring.stiffness", np.array([4.0]))
    c.set_param("spring.mass", 2.0)
    assert c.time == 2.5
    close(c.xc, [0.5, 3.0], 0, "xc")
    # x' = v, v' = -(k/m) x (the spec's derivatives)
    close(c.derivatives(), [3.0, -(4.0 / 2.0) * 0.5], 1e-15, "derivatives")
    close(c.eval("spring.x"), [0.5], 0, "output x")
    # energy = k x^2 / 2 + m v^2 / 2
    close(c.get("spring.energy"), [0.5 * 4 * 0.25 + 0.5 * 2 * 9], 1e-14, "output energy")
    c.xc = [1.0, -1.0]
    close(c.get_state("spring.q"), [1.0], 0, "q after xc")
    c.set("spring.stiffness", 9.0)
    close(c.get("spring.stiffness"), [9.0], 0, "generic set/get")


@test
def inputs_and_clone():
    c = fo.context()
    c.set_input("u", 2.0)
    c.set_param("plant.a", 1.0)
    d = c.clone()
    d.set_input("u", -1.0)
    # x' = -a x + b u with x = 2, b = 0.5
    close(c.derivatives(), [-2.0 + 0.5 * 2.0], 1e-15, "derivatives with u = 2")
    close(d.derivatives(), [-2.0 - 0.5], 1e-15, "the clone's, u = -1")
    close(c.get_input("u"), [2.0], 0, "u of the original")


@test
def bad_names():
    c = sm.context()
    raises(lambda: c.get_state("spring.qq"), "no state named 'spring.qq' in model spring_mass",
           "did you mean 'spring.q'?")
    raises(lambda: c.set_param("spring.stifness", 1.0), "no parameter named 'spring.stifness'",
           "did you mean 'spring.stiffness'?")
    raises(lambda: c.set_param("spring.q", 1.0), "'spring.q' is a state, not a parameter; use set_state")
    raises(lambda: c.get_input("u"), "no input named 'u'")
    raises(lambda: c.eval("spring.y"), "no output port or cache entry named 'spring.y'")
    raises(lambda: c.get("nothing"), "nothing named 'nothing'")


@test
def bad_values():
    c = sm.context()
    raises(lambda: c.set_param("spring.stiffness", [1.0, 2.0]), "spring.stiffness: it has 1 value, got an "
           "array of shape (2,)")
    raises(lambda: c.set_param("spring.stiffness", float("nan")), "spring.stiffness: value 1 is nan; "
           "give finite numbers")
    raises(lambda: c.set_state("spring.q", "abc"), "spring.q: expects 1 number")
    raises(lambda: setattr(c, "xc", [1.0]), "xc: it has 2 values")
    raises(lambda: setattr(c, "time", float("inf")), "time: inf is not finite")
    close(c.get_param("spring.stiffness"), [1.0], 0, "unchanged after the refusals")


done()
