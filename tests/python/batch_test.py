"""Model.batch over the C batch API: every run bit for bit a single
simulate() of the same values, on 1 and 2 threads; input sequences; the
batch's VJP on a world equal to the rollout's vjp; failures per run; bad
jobs raise DiagcError."""
import numpy as np

from harness import close, done, raises, spec, test

import diagc

sm = diagc.build(spec("examples/spring_mass.lua"))
OPTS = dict(integrator="dormand_prince54", accuracy=1e-12, max_step=0.01)


@test
def bit_identical_to_single_runs_any_jobs():
    k = np.linspace(1.0, 4.0, 7)
    x0 = np.linspace(0.5, 1.5, 7)
    results = [sm.batch(2.0, set={"spring.stiffness": k, "spring.q": x0[:, None]}, jobs=j, **OPTS)
               for j in (1, 2)]
    assert results[0].jobs == 1 and results[1].jobs == 2, (results[0].jobs, results[1].jobs)
    for r in results:
        assert list(r.status) == [0] * 7 and r.messages == [""] * 7
        for i in range(7):
            c = sm.context()
            c.set_param("spring.stiffness", k[i])
            c.set_state("spring.q", x0[i])
            logs = c.simulate(until=2.0, **OPTS)
            assert np.array_equal(logs["spring.x"], r.log(i)["spring.x"]), "run %d's log" % i
            assert np.array_equal(c.xc, r.final_state[i]), "run %d's final state" % i
            t, x = logs.arrays("spring.x")
            close(x, x0[i] * np.cos(np.sqrt(k[i]) * t), 1e-9, "run %d against x0 cos(sqrt(k) t)" % i)


@test
def input_sequence_first_order():
    fo = diagc.build(spec("tests/python/first_order.lua"))
    # u held at 1 from t = 0: x(t) = (b/a) + (x0 - b/a) e^{-a t}, a = 3, b = 0.5, x0 = 2
    u = np.ones((2, 11))
    u[1] *= 2.0
    r = fo.batch(1.0, inputs={"u": u}, sample_period=0.1, **OPTS)
    for i, ui in enumerate((1.0, 2.0)):
        t, y = r.log(i).arrays("plant.y")
        xs = 0.5 * ui / 3.0
        close(y, 4.0 * (xs + (2.0 - xs) * np.exp(-3.0 * t)), 1e-9, "y of run %d (c = 4)" % i)


@test
def world_vjp_equals_rollout():
    ex = diagc.build(spec("tests/python/cart_export.lua"))
    fx = diagc.build(spec("tests/python/cart_world.lua"))
    R, K, dt = 3, 50, 1e-3
    q0 = np.array([[0.1 * i, 0.3 - 0.05 * i] for i in range(R)])
    v0 = np.array([[0.2, -0.1 * i] for i in range(R)])
    f = np.array([[0.5 * np.sin(0.05 * k + i) for k in range(K)] for i in range(R)])
    names = ex.state_names
    lq, lv = np.array([1.0, -2.0]), np.array([0.5, 3.0])
    cot = np.zeros((R, len(names)))
    cot[:, [names.index("plant.cart.q"), names.index("plant.pole.q")]] = lq
    cot[:, [names.index("plant.cart.v"), names.index("plant.pole.v")]] = lv
    r = ex.batch(K * dt, set={"plant.pos": q0, "plant.vel": v0}, inputs={"force": f}, sample_period=dt,
                 cotangent=cot, vjp_steps=K, jobs=2)
    assert list(r.status) == [0] * R, r.messages
    for i in range(R):
        c = fx.context()
        c.set_state("plant.pos", q0[i])
        c.set_state("plant.vel", v0[i])
        tr = c.rollout(K, effort=f[i][:, None])
        g = tr.vjp(lq, lv)
        close(r.grad_state[i, [names.index("plant.cart.q"), names.index("plant.pole.q")]], g["q"], 1e-12,
              "run %d: dL/dq0" % i)
        close(r.grad_state[i, [names.index("plant.cart.v"), names.index("plant.pole.v")]], g["v"], 1e-12,
              "run %d: dL/dv0" % i)
        close(r.grad_inputs[i], g["effort"], 1e-12, "run %d: dL/dforce" % i)


@test
def failures_stay_in_their_run():
    r = sm.batch(1.0, set={"spring.mass": [1.0, 0.0, 2.0]}, **OPTS)
    assert list(r.failed()) == [1], list(r.status)
    assert r.status[0] == 0 and r.status[2] == 0
    assert "spring.position" in r.messages[1], r.messages[1]


@test
def releases_the_gil():
    # a batch in a thread: the main thread keeps running Python meanwhile
    import threading
    import time
    box = {}
    th = threading.Thread(target=lambda: box.update(r=sm.batch(5.0, runs=8, jobs=1, integrator="runge_kutta4",
                                                               fixed_step=1e-4, max_rows=510)))
    t0 = time.perf_counter()
    th.start()
    spins = 0
    while th.is_alive():
        spins += 1
    took = time.perf_counter() - t0
    assert list(box["r"].status) == [0] * 8
    assert took < 0.05 or spins > 1000, "%d loop turns in the %.3f s of the batch" % (spins, took)


@test
def bad_jobs():
    raises(lambda: sm.batch(1.0), "batch: say how many runs")
    raises(lambda: sm.batch(1.0, set={"spring.stifness": [1.0]}), "no numeric state, parameter or input named "
           "'spring.stifness'", "did you mean 'spring.stiffness'?")
    raises(lambda: sm.batch(1.0, set={"spring.stiffness": np.ones((2, 2))}),
           "set['spring.stiffness'] must have shape (2, 1)")
    raises(lambda: sm.batch(1.0, set={"spring.stiffness": [1.0, np.nan]}), "is nan; give finite numbers")
    raises(lambda: sm.batch(1.0, runs=2, set={"spring.stiffness": [1.0]}), "has 1 runs, other arrays 2")
    raises(lambda: sm.batch(float("inf"), runs=1), "t_final must be a finite time >= 0")
    raises(lambda: sm.batch(1.0, runs=1, jobs=1000), "jobs must be a whole number from 0 (every core) to 256")
    raises(lambda: sm.batch(1.0, runs=1, cotangent=np.zeros((1, 2))), "a cotangent needs a model without "
           "continuous state")
    raises(lambda: sm.batch(1.0, runs=1, integrator="nope"), "integrator 'nope' is not known")


done()
