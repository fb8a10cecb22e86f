"""examples/python/trajopt.py: a trajectory optimization with gradients
from reverse mode through the world's steps (Context.rollout and vjp).

    python3 examples/python/trajopt.py

The cart of examples/python/cart.lua (its pole hanging) must travel 1 m in
N = 300 steps of 10 ms (3 s) and arrive with cart and pole at rest.  The
unknowns are the N forces u; the cost is

    L(u) = W |x_N(u) - x*|^2 + r |u|^2,   x_N = (q_N, v_N), x* = (1, 0, 0, 0)

Each vjp of a rollout with the cotangent e_i of the final state gives one
row of G = d x_N / d u (4 vjps, one backward pass each: the trajectory's
Jacobian is never formed otherwise), and the gradient of L is
2 W G^T (x_N - x*) + 2 r u.  Damped Gauss-Newton steps (Levenberg-
Marquardt) u <- u - (W G^T G + (r + mu) I)^-1 (W G^T (x_N - x*) + r u),
kept when they lower L (mu shrinks) and retried with a larger mu when they
do not (the pole swings: x_N is not linear in u), converge in a few
iterations; no SciPy needed.
"""
import os

import numpy as np

import diagc

here = os.path.dirname(os.path.abspath(__file__))
model = diagc.build(os.path.join(here, "cart.lua"))
N, W, r = 300, 100.0, 1e-4
x_goal = np.array([1.0, 0.0, 0.0, 0.0])


def rollout(u):
    """The final state's error, L, G = d x_N / d u (4 x N) and the trajectory."""
    traj = model.context().rollout(N, effort=u.reshape(N, 1))
    e = np.concatenate([traj.q[-1], traj.v[-1]]) - x_goal
    G = np.array([traj.vjp(lam[:2], lam[2:])["effort"].ravel() for lam in np.eye(4)])
    return e, W * (e @ e) + r * (u @ u), G, traj


u, mu = np.zeros(N), 1e-2
e, L, G, traj = rollout(u)
for it in range(1, 21):
    grad = 2 * W * G.T @ e + 2 * r * u
    print("iteration %2d: cost %.6e, |gradient| %.1e" % (it - 1, L, np.linalg.norm(grad)))
    if np.linalg.norm(grad) < 1e-6:
        break
    while True:
        u_new = u - np.linalg.solve(W * G.T @ G + (r + mu) * np.eye(N), W * G.T @ e + r * u)
        e_new, L_new, G_new, traj_new = rollout(u_new)
        if L_new < L:
            u, e, L, G, traj, mu = u_new, e_new, L_new, G_new, traj_new, mu / 3
            break
        mu *= 4
print("final cart position %.6f m (goal 1), speed %.1e m/s, pole angle %.1e rad, force peak %.2f N"
      % (traj.q[-1, 0], traj.v[-1, 0], traj.q[-1, 1], np.max(np.abs(u))))
