"""simulate: the spring-mass against x(t) = x0 cos(w t), w = sqrt(k/m),
with an error-controlled and a fixed-step integrator; the logs as
structured arrays; the context ends at the final state; a discrete model's
samples; bad options and failed runs raise DiagcError."""
import numpy as np

from harness import close, done, raises, spec, test

import diagc

sm = diagc.build(spec("examples/spring_mass.lua"))


@test
def spring_mass_dormand_prince():
    c = sm.context()
    c.set_param("spring.stiffness", 4.0)  # w = 2
    c.set_state("spring.q", 0.5)
    logs = c.simulate(until=3.0, integrator="dormand_prince54", accuracy=1e-12, max_step=0.01)
    a = logs["spring.x"]
    assert a.dtype.names == ("t", "value"), a.dtype
    assert len(a) == 301, len(a)                      # every 10 ms from 0 to 3
    close(a["t"], np.arange(301) * 0.01, 1e-12, "sample times")
    close(a["value"], 0.5 * np.cos(2 * a["t"]), 1e-9, "x against 0.5 cos(2t)")
    assert c.time == 3.0
    close(c.xc, [0.5 * np.cos(6.0), -1.0 * np.sin(6.0)], 1e-9, "final state in the context")
    assert logs.status == 0 and logs.stats["log_rows"] == 301, logs.stats["log_rows"]


@test
def spring_mass_rk4_fixed_step():
    c = sm.context()
    logs = c.simulate(until=2.0, integrator="runge_kutta4", fixed_step=1e-3)
    t, x = logs.arrays("spring.x")
    # RK4's global error ~ h^4 t / 120 for x'' = -x
    close(x, np.cos(t), 1e-12, "x against cos(t)")


@test
def continues_from_the_context():
    c = sm.context()
    c.simulate(until=1.0, integrator="dormand_prince54", accuracy=1e-12, max_step=0.01)
    logs = c.simulate(until=2.0, integrator="dormand_prince54", accuracy=1e-12, max_step=0.01)
    t, x = logs.arrays("spring.x")
    assert t[0] == 1.0 and t[-1] == 2.0, (t[0], t[-1])
    close(x, np.cos(t), 1e-9, "second leg against cos(t)")


@test
def discrete_counter():
    m = diagc.build(spec("examples/discrete_counter.lua"))
    logs = m.simulate(until=0.06)
    a = logs["example.Sn"]
    close(a["t"], [0, 0.02, 0.04, 0.06], 1e-15, "times")
    close(a["value"], [0, 10, 20, 30], 0, "Sn = 10 x, x counting up every 1/50 s")


@test
def bad_options_and_failures():
    c = sm.context()
    raises(lambda: c.simulate(until=1.0, integrator="rk45"), "integrator 'rk45' is not known")
    raises(lambda: c.simulate(until=1.0, tolerance=1e-3), "no option 'tolerance'")
    raises(lambda: c.simulate(until=1.0, accuracy=-1), "accuracy must be a finite number >= 0")
    raises(lambda: c.simulate(until=float("nan")), "until = nan is not a finite time")
    c.time = 5.0
    raises(lambda: c.simulate(until=1.0), "at or after the context's time 5")
    d = sm.context()
    d.set_param("spring.mass", 0.0)  # k / m = inf: the first derivative is not finite
    raises(lambda: d.simulate(until=1.0), "diagc: simulate: ", "spring.position")


done()
