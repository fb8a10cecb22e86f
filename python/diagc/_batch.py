"""diagc._batch: Model.batch -- many runs of one model at once over the C
batch API (diagc/batch.h, docs/sweep.md): NumPy arrays in and out, the runs
spread over a pool of C11 threads while Python's GIL is released (one
foreign call for the whole batch).  Each run's results are bit for bit
those of a single simulator running it, whatever the number of threads."""
import ctypes as C
import math

import numpy as np

from . import _c
from ._errors import as_floats, fail
from ._model import _hint
from ._sim import _options, logs_from_rows

P = C.c_void_p
c_int_p, c_double_p = _c.c_int_p, _c.c_double_p
MAX_JOBS = 256
MESSAGE = 256


class Job(C.Structure):
    _fields_ = [("n_runs", C.c_int), ("t_final", C.c_double),
                ("n_set", C.c_int), ("set", c_int_p), ("set_values", c_double_p),
                ("n_seq", C.c_int), ("seq", c_int_p), ("n_samples", C.c_int), ("sample_period", C.c_double),
                ("seq_values", c_double_p),
                ("max_rows", C.c_int), ("t", c_double_p), ("values", c_double_p),
                ("fired", C.POINTER(C.c_ubyte)), ("rows", c_int_p),
                ("status", c_int_p), ("messages", C.c_char_p), ("end_time", c_double_p),
                ("final_state", c_double_p),
                ("cotangent", c_double_p), ("grad_state", c_double_p), ("grad_inputs", c_double_p),
                ("vjp_steps", C.c_int)]


def _declare(lib):
    if getattr(lib, "_diagc_batch", False):
        return
    try:
        lib.diagc_batch_run
    except AttributeError:
        fail("this diagc's runtime has no batch API (diagc_batch_run); rebuild diagc")
    sig = {"diagc_batch_create": (P, [C.POINTER(_c.Model), C.POINTER(_c.SimOptions), C.c_int, C.c_char_p,
                                      C.c_size_t]),
           "diagc_batch_destroy": (None, [P]), "diagc_batch_jobs": (C.c_int, [P]),
           "diagc_batch_context": (P, [P]),
           "diagc_batch_log_width": (C.c_int, [C.POINTER(_c.Model)]),
           "diagc_batch_run": (C.c_int, [P, C.POINTER(Job), C.c_char_p, C.c_size_t])}
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    lib._diagc_batch = True


def _ptr(a, t=c_double_p):
    return a.ctypes.data_as(t) if a is not None and a.size else None


def _sources(m, what, named, n_runs, per_run_shape):
    """(indices, values n_runs x ... x width) of a dict name -> array."""
    idx, cols = [], []
    for name, value in named.items():
        s = m.sources.get(name)
        numeric = [n for n, v in m.sources.items() if v[2] > 0 and v[1] not in (_c.SRC_TIME, _c.SRC_ACCURACY)]
        if s is None or s[2] == 0 or s[1] in (_c.SRC_TIME, _c.SRC_ACCURACY):
            fail("batch: %s: no numeric state, parameter or input named '%s' in model %s%s", what, name, m.name,
                 _hint(str(name), numeric))
        size = s[2]
        a = as_floats(value, "batch: %s['%s']" % (what, name))
        want = (n_runs,) + per_run_shape + (size,)
        if a.shape == want[:-1] and size == 1:
            a = a.reshape(want)
        if a.shape != want:
            fail("batch: %s['%s'] must have shape %s (runs%s x its %d element%s), got %s", what, name, want,
                 " x samples" if per_run_shape else "", size, "" if size == 1 else "s", a.shape)
        bad = np.argwhere(~np.isfinite(a))
        if bad.size:
            fail("batch: %s['%s'] at %s is %s; give finite numbers", what, name, tuple(bad[0]), a[tuple(bad[0])])
        idx.append(s[0])
        cols.append(a)
    if not idx:
        return None, None
    return np.array(idx, dtype=np.intc), np.ascontiguousarray(np.concatenate(cols, axis=-1))


def _runs(runs, *arrays):
    n = runs
    for name, a in arrays:
        for k, v in (a or {}).items() if isinstance(a, dict) else ([(None, a)] if a is not None else []):
            r = np.shape(v)[0] if np.ndim(v) else None
            if r is None:
                continue
            if n is None:
                n = r
            elif r != n:
                fail("batch: %s%s has %d runs, other arrays %d: give one row per run everywhere", name,
                     "['%s']" % k if k else "", r, n)
    if n is None:
        fail("batch: say how many runs: runs=N, or arrays with one row per run (set=, inputs=, cotangent=)")
    if not isinstance(n, (int, np.integer)) or n < 1 or n > 2 ** 31 - 1:
        fail("batch: runs must be a whole number from 1 to %d, got %r", 2 ** 31 - 1, n)
    return int(n)


def _max_rows(m, t_final, max_rows):
    if max_rows is not None:
        if not isinstance(max_rows, (int, np.integer)) or not 0 <= max_rows <= 2 ** 31 - 1:
            fail("batch: max_rows must be a whole number >= 0, got %r", max_rows)
        return int(max_rows)
    rows = 0
    for i in range(m.d.n_loggers):
        period = m.d.loggers[i].period
        if period <= 0:
            fail("batch: logger %s samples every step, so the rows cannot be known ahead: give max_rows",
                 m.loggers[i][0])
        rows += int(math.floor(t_final / period)) + 2
    return rows


class BatchResult:
    """The runs' results: t (runs x max_rows), values (runs x max_rows x
    log_width, NaN where a logger did not fire), fired (runs x max_rows x
    loggers), rows (runs), status (runs: 0, 1 for a run a handler ended
    early, or a negative status), messages (runs: one line, "" on
    success), end_time, final_state (runs x (nxc + nxd)), and with a
    cotangent grad_state (runs x nxd) and grad_inputs (runs x K x nu)."""

    def __init__(self, model, **kw):
        self.model = model
        self.__dict__.update(kw)

    def log(self, i):
        """Run i's logs in the form of Context.simulate's: logger name ->
        structured array (t, value) of the rows where it fired."""
        n = int(self.rows[i])
        logs = logs_from_rows(self.model.loggers, self.t[i, :n], self.values[i, :n], self.fired[i, :n])
        logs.status = int(self.status[i])
        return logs

    def failed(self):
        """The indices of the runs that failed (status < 0)."""
        return np.flatnonzero(self.status < 0)


def batch(m, t_final, runs=None, set=None, inputs=None, sample_period=None, max_rows=None, jobs=0,
          context=None, cotangent=None, vjp_steps=None, **sim_options):
    """Run many simulations of model m from t = 0 to t_final (Model.batch;
    docs/python.md, "Batches")."""
    lib = _c.runtime()
    _declare(lib)
    d = m.d
    try:
        t_final = float(t_final)
    except (TypeError, ValueError):
        fail("batch: t_final must be a number, got %r", t_final)
    if not np.isfinite(t_final) or t_final < 0:
        fail("batch: t_final must be a finite time >= 0, got %r", t_final)
    if not isinstance(jobs, (int, np.integer)) or not 0 <= jobs <= MAX_JOBS:
        fail("batch: jobs must be a whole number from 0 (every core) to %d, got %r", MAX_JOBS, jobs)
    for name, arg in (("set", set), ("inputs", inputs)):
        if arg is not None and not isinstance(arg, dict):
            fail("batch: %s must be a dict of name -> array, got %s", name, type(arg).__name__)
    n = _runs(runs, ("set", set), ("inputs", inputs), ("cotangent", cotangent))
    set_idx, set_vals = _sources(m, "set", set or {}, n, ())
    seq_idx, seq_vals, n_samples = None, None, 0
    if inputs:
        n_samples = min(np.shape(v)[1] if np.ndim(v) > 1 else 0 for v in inputs.values())
        seq_idx, seq_vals = _sources(m, "inputs", inputs, n, (n_samples,))
        try:
            sample_period = float(sample_period)
        except (TypeError, ValueError):
            fail("batch: inputs need sample_period = the time between their samples (> 0), got %r", sample_period)
        if not np.isfinite(sample_period) or sample_period <= 0:
            fail("batch: sample_period must be a finite time > 0, got %r", sample_period)
    rows_max = _max_rows(m, t_final, max_rows)
    lw = lib.diagc_batch_log_width(m._pdesc)
    nl, ns = d.n_loggers, d.nxc + d.nxd
    out = dict(t=np.full((n, rows_max), np.nan), values=np.full((n, rows_max, lw), np.nan),
               fired=np.zeros((n, rows_max, nl), dtype=np.uint8), rows=np.zeros(n, dtype=np.intc),
               status=np.zeros(n, dtype=np.intc), end_time=np.zeros(n), final_state=np.zeros((n, ns)))
    msgs = C.create_string_buffer(n * MESSAGE)
    job = Job(n_runs=n, t_final=t_final)
    if set_idx is not None:
        job.n_set, job.set, job.set_values = len(set_idx), _ptr(set_idx, c_int_p), _ptr(set_vals)
    if seq_idx is not None:
        job.n_seq, job.seq, job.n_samples, job.sample_period, job.seq_values = \
            len(seq_idx), _ptr(seq_idx, c_int_p), n_samples, sample_period, _ptr(seq_vals)
    job.max_rows = rows_max
    job.t, job.values, job.rows = _ptr(out["t"]), _ptr(out["values"]), _ptr(out["rows"], c_int_p)
    job.fired = _ptr(out["fired"], C.POINTER(C.c_ubyte))
    job.status, job.messages = _ptr(out["status"], c_int_p), C.cast(msgs, C.c_char_p)
    job.end_time, job.final_state = _ptr(out["end_time"]), _ptr(out["final_state"])
    if cotangent is not None:
        if d.nxc != 0 or d.n_jac_updates != 1 or not d.jac_updates[0].jac:
            fail("batch: a cotangent needs a model without continuous state and with one periodic update "
                 "that has a generated Jacobian (a world); model %s has %d continuous states and %d update "
                 "timings", m.name, d.nxc, d.n_jac_updates)
        try:
            cot = np.ascontiguousarray(np.asarray(cotangent, dtype=np.float64))
        except (TypeError, ValueError):
            fail("batch: cotangent must be an array of runs x nxd = (%d, %d) numbers, got %r", n, d.nxd,
                 type(cotangent).__name__)
        if cot.shape != (n, d.nxd):
            fail("batch: cotangent must be runs x nxd = (%d, %d) finite numbers (the final discrete state: %s), "
                 "got shape %s", n, d.nxd, ", ".join(m.state_names[:4]) + (", ..." if d.nxd > 4 else ""),
                 cot.shape)
        bad = np.argwhere(~np.isfinite(cot))
        if bad.size:
            fail("batch: cotangent at %s is %s; give finite numbers", tuple(int(i) for i in bad[0]),
                 cot[tuple(bad[0])])
        h = d.jac_updates[0].period
        k_max = vjp_steps if vjp_steps is not None else int(math.ceil(t_final / h)) + 1
        nu = d.jac_updates[0].ncol - d.nxd
        out["grad_state"] = np.zeros((n, d.nxd))
        out["grad_inputs"] = np.zeros((n, k_max, nu))
        job.cotangent, job.grad_state = _ptr(cot), _ptr(out["grad_state"])
        job.grad_inputs, job.vjp_steps = _ptr(out["grad_inputs"]), k_max
    o, _keep = _options(sim_options)
    err = C.create_string_buffer(512)
    b = lib.diagc_batch_create(m._pdesc, C.byref(o), int(jobs), err, len(err))
    if not b:
        fail("batch: %s", err.value.decode() or "the batch could not be created")
    try:
        if context is not None:
            if context.model is not m:
                fail("batch: context= is a context of model %s, not of %s", context.model.name, m.name)
            C.memmove(lib.diagc_batch_context(b), context.ptr, d.context_size)
        used = lib.diagc_batch_jobs(b)
        rc = lib.diagc_batch_run(b, C.byref(job), err, len(err))  # the GIL is released meanwhile
        if rc != 0:
            fail("batch: %s", err.value.decode() or _c.status_message(rc))
    finally:
        lib.diagc_batch_destroy(b)
    raw = msgs.raw
    out["messages"] = [raw[i * MESSAGE:(i + 1) * MESSAGE].split(b"\0", 1)[0].decode() for i in range(n)]
    return BatchResult(m, jobs=used, **out)
