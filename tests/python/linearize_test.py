"""linearize and the generated Jacobians against their analytic values:
the first-order plant (A = -a, B = b, C = c, D = 0; d xdot / d a = -x),
the pendulum inverted (A = [[0, 1], [g/l, -b]]) and hanging, the
spring-mass's d xcdot / d xc; the generated and the central-difference
results agree; bad requests raise DiagcError with the reason."""
import numpy as np

from harness import close, done, raises, spec, test

import diagc

fo = diagc.build(spec("tests/python/first_order.lua"))
pend = diagc.build(spec("examples/pendulum.lua"))
sm = diagc.build(spec("examples/spring_mass.lua"))


@test
def first_order_abcd():
    c = fo.context()
    c.set_state("plant.x", 0.0)
    c.set_input("u", 0.0)
    lin = c.linearize()
    a, b, cc = 3.0, 0.5, 4.0
    close(lin.A, [[-a]], 1e-15, "A")
    close(lin.B, [[b]], 1e-15, "B")
    assert lin.outputs == ["y", "plant.y"], lin.outputs   # exported, then logged
    assert lin.inputs == ["u"], lin.inputs
    close(lin.C, [[cc], [cc]], 1e-15, "C")
    close(lin.D, [[0.0], [0.0]], 0, "D")
    assert lin.time_period == 0.0
    one = c.linearize(output="y", input="u")
    close(one.C, [[cc]], 1e-15, "C of y alone")


@test
def first_order_taylor_anywhere():
    c = fo.context()
    c.set_state("plant.x", 2.0)
    c.set_input("u", 1.0)
    lin = c.linearize(mode="first_order_taylor")
    # xdot = -a x + b u exactly affine: f0 = 0, y0 = 0
    close(lin.f0, [0.0], 1e-15, "f0")
    close(lin.x0, [2.0], 0, "x0")
    close(lin.u0, [1.0], 0, "u0")


@test
def parameter_and_lin_jacobians():
    c = fo.context()  # x = 2
    close(c.parameter_jacobian(), [[-2.0], [0.0], [0.0]], 1e-15, "d(xdot, y, y) / d a = (-x, 0, 0)")
    close(c.lin_jacobian(), [[-3.0, 0.5], [4.0, 0.0], [4.0, 0.0]], 1e-15, "d(xdot, y) / d(x, u)")


@test
def pendulum_inverted_and_hanging():
    g, l, b = 9.81, 1.0, 0.1
    c = pend.context()
    c.set_state("pend.theta", np.pi)
    c.set_state("pend.omega", 0.0)
    for how in ("model", "fd"):
        lin = c.linearize(jacobian=how)
        close(lin.A, [[0, 1], [g / l, -b]], 1e-12 if how == "model" else 1e-6, "inverted A (%s)" % how)
        assert lin.outputs == ["theta", "pend.angle", "pend.energy"], lin.outputs
        # theta, the angle, and the energy g l (1 - cos) + l^2 w^2 / 2: flat at the top
        close(lin.C, [[1, 0], [1, 0], [0, 0]], 1e-12 if how == "model" else 1e-6, "C (%s)" % how)
    c.set_state("pend.theta", 0.0)
    close(c.linearize().A, [[0, 1], [-g / l, -b]], 1e-12, "hanging A")


@test
def spring_state_jacobian():
    c = sm.context()
    c.set_param("spring.stiffness", 3.0)
    c.set_param("spring.mass", 2.0)
    close(c.state_jacobian(), [[0, 1], [-1.5, 0]], 1e-15, "d xcdot / d xc")


@test
def refusals():
    c = pend.context()  # theta = 0.5: not an equilibrium
    raises(lambda: c.linearize(), "linearize: ", "pend.omega")
    raises(lambda: c.linearize(mode="affine"), "mode must be 'linearize' or 'first_order_taylor'")
    raises(lambda: c.linearize(output="angle"), "output 'angle' is not one of the model's outputs",
           "did you mean")
    raises(lambda: c.linearize(tolerance=0), "tolerance must be a finite number > 0")
    raises(lambda: sm.context().parameter_jacobian(), "jac_p: the model has no generated jac_p")
    raises(lambda: sm.context().update_jacobian(), "update_jacobian: the model has 0 periodic update timings")


done()
