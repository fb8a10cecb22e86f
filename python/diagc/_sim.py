"""diagc._sim: Context.simulate -- the runtime's simulator (diagc/simulator.h)
on a copy of the context, its loggers collected into NumPy arrays."""
import ctypes as C
import math

import numpy as np

from . import _c
from ._errors import fail

# the options of simulate() that map onto diagc_sim_options fields
_NUMBERS = ("accuracy", "max_step", "fixed_step", "initial_step", "min_step")


class Logs(dict):
    """Logger name -> structured array with fields 't' and 'value' (one row
    per sample; 'value' has the logger's size, a scalar for size 1).
    .stats: the simulator's counters (diagc_sim_statistics) as a dict;
    .status: 0, or 1 when a handler terminated the run early."""

    _st = None
    _stats = None

    @property
    def stats(self):
        """The simulator's counters (diagc_sim_statistics) as a dict, made
        on first use."""
        if self._stats is None and self._st is not None:
            self._stats = {f: getattr(self._st, f) for f, _ in _c.SimStatistics._fields_}
        return self._stats

    def arrays(self, name):
        """(t, values) of one logger as plain arrays."""
        a = self[name]
        return a["t"].copy(), a["value"].copy()


_DTYPES = {}


def _dtype(size):
    """The structured dtype of a logger's rows (cached: one per size)."""
    d = _DTYPES.get(size)
    if d is None:
        d = _DTYPES[size] = np.dtype([("t", np.float64), ("value", np.float64, (size,))]) if size != 1 else \
            np.dtype([("t", np.float64), ("value", np.float64)])
    return d


def logs_from_rows(loggers, t, values, fired):
    """Logs from rows of samples: t (rows), values (rows x the loggers'
    elements), fired (rows x loggers, or None: every logger in every row);
    each logger gets its own rows (no selection when it fired in every
    row, the common case)."""
    logs, col, n = Logs(), 0, len(t)
    for k, (name, size) in enumerate(loggers):
        f = fired[:, k] if fired is not None else None
        count = int(np.count_nonzero(f)) if f is not None else n
        if count == n:
            tk, vk = t, values[:, col:col + size]
        else:
            sel = f.astype(bool)
            tk, vk = t[sel], values[sel, col:col + size]
        a = np.empty(count, dtype=_dtype(size))
        a["t"] = tk
        a["value"] = vk if size != 1 else vk[:, 0]
        logs[name] = a
        col += size
    return logs


def _view(ptr, shape, dtype):
    """The C array at ptr as a read-only array of `shape` (one copy into a
    bytes object, cheaper from Python than np.empty and memmove)."""
    n = shape[0] * (shape[1] if len(shape) > 1 else 1)
    if n == 0:
        return np.zeros(shape, dtype=dtype)
    return np.frombuffer(C.string_at(ptr, n * np.dtype(dtype).itemsize), dtype=dtype).reshape(shape)


def _options(opts):
    lib = _c.runtime()
    o = _c.SimOptions()
    lib.diagc_sim_options_init(C.byref(o))
    keep = []
    for k, v in opts.items():
        if k == "integrator":
            if not isinstance(v, str) or not lib.diagc_integrator_known(v.encode()):
                fail("simulate: integrator %r is not known; one of runge_kutta3, dormand_prince54, "
                     "bogacki_shampine3, implicit_euler, radau3, radau5, runge_kutta4, runge_kutta2, "
                     "semi_explicit_euler, explicit_euler", v)
            keep.append(v.encode())
            o.integrator = keep[-1]
        elif k in _NUMBERS:
            try:
                x = float(v)
            except (TypeError, ValueError):
                fail("simulate: %s must be a number, got %r", k, v)
            if not np.isfinite(x) or x < 0:
                fail("simulate: %s must be a finite number >= 0, got %r", k, v)
            setattr(o, k, x)
            if k == "fixed_step":
                o.error_control = 0
        elif k == "error_control" or k == "check_finite":
            setattr(o, k, 1 if v else 0)
        elif k == "jacobian":
            if v not in ("model", "fd"):
                fail("simulate: jacobian must be 'model' or 'fd', got %r", v)
            o.jacobian = _c.JACOBIAN_MODEL if v == "model" else _c.JACOBIAN_FD
        elif k == "max_steps":
            if not isinstance(v, (int, np.integer)) or v < 1:
                fail("simulate: max_steps must be a whole number >= 1, got %r", v)
            o.max_steps = int(v)
        else:
            fail("simulate: no option %r (integrator, accuracy, max_step, fixed_step, initial_step, "
                 "min_step, error_control, check_finite, jacobian, max_steps)", k)
    return o, keep


def _one_call(m):
    """collect.c's diagc_py_simulate in the model's library (declared once
    per model), or None for a library built without it."""
    f = m.__dict__.get("_py_simulate", False)
    if f is False:
        f = getattr(m._lib, "diagc_py_simulate", None) if hasattr(m._lib, "diagc_py_simulate") else None
        if f is not None:
            f.restype = C.c_int
            f.argtypes = [C.POINTER(_c.Model), C.c_void_p, C.POINTER(_c.SimOptions), C.c_double,
                          C.POINTER(_c.PyLog), C.POINTER(_c.SimStatistics), C.c_char_p, C.c_size_t]
        m._py_simulate = f
    return f


def _simulate_in_c(m, ctx, one_call, o, until, err):
    """simulate() as one foreign call (collect.c's diagc_py_simulate: the
    simulator made, run and freed in C), its samples read into Logs."""
    sizes = m.__dict__.get("_log_sizes")
    if sizes is None:
        sizes = m._log_sizes = (C.c_int * max(len(m.loggers), 1))(*[s for _, s in m.loggers])
    width = sum(s for _, s in m.loggers)
    col = _c.PyLog(n_loggers=len(m.loggers), width=width, sizes=sizes)
    st = _c.SimStatistics()
    try:
        rc = one_call(m._pdesc, ctx.ptr, C.byref(o), until, C.byref(col), C.byref(st), err, len(err))
        if rc < 0:
            fail("simulate: %s", err.value.decode() or "the simulator failed")
        if col.failed:
            fail("simulate: out of memory for the logs after %d rows; log less (a period) or simulate less",
                 col.rows)
        n = col.rows
        # read before collect.c's arrays are freed; logs_from_rows copies
        fired = None if col.full_rows == n else _view(col.fired, (n, len(m.loggers)), np.uint8)
        logs = logs_from_rows(m.loggers, _view(col.t, (n,), np.float64), _view(col.values, (n, width), np.float64),
                              fired)
    finally:
        m._lib.diagc_py_log_free(C.byref(col))
    logs._st = st
    logs.status = rc
    return logs


def simulate(ctx, until, **opts):
    """Simulate from the context's time and state to `until`; the context
    then holds the final time and state.  Returns Logs."""
    m = ctx.model
    try:
        until = float(until)
    except (TypeError, ValueError):
        fail("simulate: until must be a number, got %r", until)
    if not math.isfinite(until) or until < ctx.time:
        fail("simulate: until = %r is not a finite time at or after the context's time %g", until, ctx.time)
    lib = _c.runtime()
    o, _keep = _options(opts)
    err = C.create_string_buffer(512)
    one_call = _one_call(m)
    if one_call:
        return _simulate_in_c(m, ctx, one_call, o, until, err)
    sim = lib.diagc_sim_create_ex(m._pdesc, C.byref(o), err, len(err))
    if not sim:
        fail("simulate: %s", err.value.decode() or "the simulator could not be created")
    sizes = [s for _, s in m.loggers]
    width = sum(sizes)
    try:
        append = C.cast(m._lib.diagc_py_log_append, C.c_void_p)  # collect.c, in a diagc.build library
    except AttributeError:
        append = None
    col = _c.PyLog(n_loggers=len(sizes), width=width, sizes=(C.c_int * max(len(sizes), 1))(*sizes))
    rows = []  # the Python collector's, for a library without collect.c

    def on_log(_user, t, fired, values):
        row = np.full(width, np.nan)
        f = np.zeros(len(sizes), dtype=np.uint8)
        c0 = 0
        for i, size in enumerate(sizes):
            if fired[i]:
                f[i] = 1
                row[c0:c0 + size] = np.ctypeslib.as_array(values[i], shape=(size,))
            c0 += size
        rows.append((t, row, f))

    cb = None if append else _c.LOG_FN(on_log)
    try:
        sctx = lib.diagc_sim_context(sim)
        C.memmove(sctx, ctx.ptr, m.d.context_size)
        if m.loggers:
            lib.diagc_sim_set_log_callback(sim, append or C.cast(cb, C.c_void_p),
                                           C.cast(C.pointer(col), C.c_void_p) if append else None)
        rc = lib.diagc_sim_initialize(sim)
        if rc >= 0:
            rc2 = lib.diagc_sim_advance_to(sim, until)
            rc = rc2 if rc2 != 0 else rc
        if rc < 0:
            fail("simulate: %s", lib.diagc_sim_error(sim).decode())
        if col.failed:
            fail("simulate: out of memory for the logs after %d rows; log less (a period) or simulate less",
                 col.rows)
        st = _c.SimStatistics()
        lib.diagc_sim_stats(sim, C.byref(st))
        C.memmove(ctx.ptr, sctx, m.d.context_size)
        if append:
            n = col.rows
            # read before collect.c's arrays are freed; logs_from_rows copies
            t = _view(col.t, (n,), np.float64)
            values = _view(col.values, (n, width), np.float64)
            fired = _view(col.fired, (n, len(sizes)), np.uint8)
        else:
            t = np.array([r[0] for r in rows])
            values = np.array([r[1] for r in rows]).reshape(len(rows), width)
            fired = np.array([r[2] for r in rows], dtype=np.uint8).reshape(len(rows), len(sizes))
    finally:
        lib.diagc_sim_destroy(sim)
        if append:
            m._lib.diagc_py_log_free(C.byref(col))
    logs = logs_from_rows(m.loggers, t, values, fired)
    logs._st = st
    logs.status = rc
    return logs
