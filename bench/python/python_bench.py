"""bench/python/python_bench.py: the overhead of diagc's Python package
(bench/python/run compiles ref.c into REF.so and runs this).

    python3 python_bench.py WORK REF.so ROUNDS SIM_REPS BATCH_RUNS BATCH_REPS JOBS...

1. simulate: the 10 s pendulum (examples/pendulum.lua, runge_kutta3, two
   loggers every 10 ms) by Model.simulate(until=10) against the same calls
   from C (ref_simulate, the same library, the same collector), in ROUNDS
   alternating rounds of SIM_REPS runs each; the best of each side.
2. batch: BATCH_RUNS runs of the pendulum to 2 s, pend.length set per run,
   by Model.batch(...) against diagc_batch from C (ref_batch, the same
   calls), on each number of threads in JOBS, alternating, BATCH_REPS
   per round.

Both sides run in this one process, interleaved, so the machine's load
falls on both alike.  Prints "key value..." lines for bench/python/run.
"""
import ctypes as C
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import diagc  # noqa: E402
from diagc import _batch  # noqa: E402

work, ref_path = sys.argv[1], sys.argv[2]
rounds, sim_reps, batch_runs, batch_reps = (int(x) for x in sys.argv[3:7])
jobs_list = [int(x) for x in sys.argv[7:]]

m = diagc.build(os.path.join(ROOT, "examples/pendulum.lua"), out=os.path.join(work, "pend.so"))
ref = C.CDLL(ref_path)
dp = C.POINTER(C.c_double)
ref.ref_simulate.argtypes = [C.c_void_p, C.c_double, C.c_int, dp, C.POINTER(C.c_long), dp, C.c_char_p,
                             C.c_size_t]
ref.ref_batch.argtypes = [C.c_void_p, C.c_int, C.c_int, dp, C.c_int, C.c_double, C.c_int, dp, dp,
                          C.POINTER(C.c_ubyte), C.POINTER(C.c_int), C.POINTER(C.c_int), C.c_char_p, dp, dp,
                          C.c_int, dp, C.c_char_p, C.c_size_t]
desc = C.cast(m._pdesc, C.c_void_p)
err = C.create_string_buffer(512)


def ptr(a, t=dp):
    return a.ctypes.data_as(t)


# 1. simulate against C
UNTIL = 10.0
c_times = np.zeros(sim_reps)
rows, last = C.c_long(), C.c_double()
best_c = best_py = float("inf")
ratios = []
logs = None
for r in range(rounds):
    if ref.ref_simulate(desc, UNTIL, sim_reps, ptr(c_times), C.byref(rows), C.byref(last), err, len(err)):
        sys.exit("bench/python: " + err.value.decode())
    py = []
    for _ in range(sim_reps):
        t0 = time.perf_counter()
        logs = m.simulate(until=UNTIL)
        py.append(time.perf_counter() - t0)
    best_c, best_py = min(best_c, c_times.min()), min(best_py, min(py))
    ratios.append(min(py) / c_times.min())
angle = logs["pend.angle"]["value"]
# the same run: as many samples, the same last angle bit for bit
if rows.value != len(logs["pend.angle"]) or last.value != angle[-1]:
    sys.exit("bench/python: the runs differ: C %d rows, last %r; Python %d rows, last %r"
             % (rows.value, last.value, len(angle), angle[-1]))
print("sim %.6f %.6f %.4f %.4f %d" % (best_c, best_py, best_py / best_c, float(np.median(ratios)), rows.value))

# 2. batch against C
T_FINAL = 2.0
src = [i for i in range(m.d.n_sources) if m.d.sources[i].name.decode() == "pend.length"][0]
lengths = 1.0 + 1e-3 * np.arange(batch_runs)
max_rows = _batch._max_rows(m, T_FINAL, None)
lw = _batch._c.runtime().diagc_batch_log_width(m._pdesc)
nl, ns = m.d.n_loggers, m.d.nxc + m.d.nxd
n = batch_runs
out = dict(t=np.full((n, max_rows), np.nan), values=np.full((n, max_rows, lw), np.nan),
           fired=np.zeros((n, max_rows, nl), dtype=np.uint8), rows=np.zeros(n, dtype=np.intc),
           status=np.zeros(n, dtype=np.intc), end_time=np.zeros(n), final_state=np.zeros((n, ns)))
msgs = C.create_string_buffer(n * _batch.MESSAGE)
ip = C.POINTER(C.c_int)
for jobs in jobs_list:
    b_times = np.zeros(batch_reps)
    best_c = best_py = float("inf")
    ratios = []
    used = 0
    for r in range(rounds):
        if ref.ref_batch(desc, jobs, src, ptr(lengths), n, T_FINAL, max_rows, ptr(out["t"]), ptr(out["values"]),
                         ptr(out["fired"], C.POINTER(C.c_ubyte)), ptr(out["rows"], ip), ptr(out["status"], ip),
                         msgs, ptr(out["end_time"]), ptr(out["final_state"]), batch_reps, ptr(b_times), err,
                         len(err)):
            sys.exit("bench/python: " + err.value.decode())
        py = []
        for _ in range(batch_reps):
            t0 = time.perf_counter()
            res = m.batch(T_FINAL, set={"pend.length": lengths}, jobs=jobs)
            py.append(time.perf_counter() - t0)
        used = res.jobs
        best_c, best_py = min(best_c, b_times.min()), min(best_py, min(py))
        ratios.append(min(py) / b_times.min())
    if res.failed().size or not np.array_equal(res.final_state, out["final_state"]):
        sys.exit("bench/python: the batches differ (or a run failed) on %d threads" % jobs)
    print("batch %d %.6f %.6f %.4f %.4f %d" % (used, best_c, best_py, best_py / best_c, float(np.median(ratios)), n))
