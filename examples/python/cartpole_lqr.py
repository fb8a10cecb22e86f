"""examples/python/cartpole_lqr.py: an LQR for the cart-pole world of
examples/control/cartpole_lqr.lua, designed in Python with SciPy from the
world's step Jacobians, then checked in closed loop.

    python3 examples/python/cartpole_lqr.py

1. The world's step at the upright equilibrium, linearized: x[n+1] =
   A x[n] + B u[n] with x = (cart x, pole angle, their rates), read from
   step_jacobians() (for these joints tangent coordinates are q itself).
2. K from SciPy's discrete algebraic Riccati equation with the spec's Q
   and R; the spec's own gain (lqr.K, which diagc designed when it
   generated the model) is printed next to it.
3. The closed loop u = -K x simulated for 5 s from the spec's 0.1 rad
   tilt, with SciPy's K set as the parameter lqr.K.
Without SciPy (python3-scipy) it says so and exits 0.
"""
import os
import sys

import numpy as np

import diagc

try:
    from scipy.linalg import solve_discrete_are
except ImportError:
    print("skip: SciPy is not installed (apt-get install python3-scipy)")
    sys.exit(0)

here = os.path.dirname(os.path.abspath(__file__))
model = diagc.build(os.path.join(here, "..", "control", "cartpole_lqr.lua"))

# 1. A and B of one step at the upright equilibrium
c = model.context()
c.set_state("plant.pos", [0.0, 0.0])
c.set_state("plant.vel", [0.0, 0.0])
J = c.step_jacobians()
A, B = J["T"][:, :4], J["T"][:, 4:5]

# 2. the gain: u = -K x, K = (R + B'PB)^-1 B'PA
Q, R = np.diag([10.0, 10.0, 1.0, 1.0]), np.array([[0.1]])
P = solve_discrete_are(A, B, Q, R)
K = np.linalg.solve(R + B.T @ P @ B, B.T @ P @ A).ravel()
spec_K = model.context().get_param("lqr.K")
print("K (SciPy)          ", np.array2string(K, precision=6))
print("K (diagc, the spec)", np.array2string(spec_K, precision=6))
print("max relative difference %.1e" % np.max(np.abs(K - spec_K) / np.abs(spec_K)))

# 3. closed loop from the 0.1 rad tilt, with SciPy's gain
c = model.context()
c.set_param("lqr.K", K)
logs = c.simulate(until=5.0)
t, pos = logs.arrays("plant.position")
print("pole angle: %.3f rad at t = 0, |angle| <= %.1e after t = 4 s"
      % (pos[0, 1], np.max(np.abs(pos[t >= 4.0, 1]))))
