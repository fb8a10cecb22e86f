"""diagc._c: ctypes declarations of the runtime's C API (runtime/include/diagc/
model.h, simulator.h, linearize.h, status.h) and the paths of a diagc tree.

Only the stable descriptor API is declared here: every model, however it was
generated, is driven through its `const diagc_model` and the shared runtime
(lib/libdiagc.so).  The structures mirror the headers field for field; the
ABI version (DIAGC_ABI_VERSION) is checked when a model is loaded.
"""
import ctypes as C
import os

ABI_VERSION = 8

c_double_p = C.POINTER(C.c_double)
c_int_p = C.POINTER(C.c_int)


class ValueDesc(C.Structure):
    _fields_ = [("name", C.c_char_p), ("size", C.c_int), ("elements", C.POINTER(C.c_char_p))]


class SourceDesc(C.Structure):
    _fields_ = [("name", C.c_char_p), ("kind", C.c_int), ("size", C.c_int),
                ("offset", C.c_size_t), ("byte_size", C.c_size_t)]


class EventDesc(C.Structure):
    _fields_ = [("name", C.c_char_p), ("leaf", C.c_int), ("trigger", C.c_int), ("kind", C.c_int),
                ("period", C.c_double), ("offset", C.c_double),
                ("handler", C.c_void_p), ("apply", C.c_void_p)]


class WitnessDesc(C.Structure):
    _fields_ = [("name", C.c_char_p), ("leaf", C.c_int), ("direction", C.c_int),
                ("calc", C.c_void_p), ("event", C.c_int)]


class TimedDesc(C.Structure):
    _fields_ = [("name", C.c_char_p), ("leaf", C.c_int), ("calc", C.c_void_p), ("event", C.c_int)]


class LoggerDesc(C.Structure):
    _fields_ = [("name", C.c_char_p), ("output", C.c_int), ("size", C.c_int), ("period", C.c_double)]


class CacheDesc(C.Structure):
    _fields_ = [("name", C.c_char_p), ("size", C.c_int)]


JAC_FN = C.CFUNCTYPE(C.c_int, C.c_void_p, c_double_p)


class JacUpdateDesc(C.Structure):
    _fields_ = [("name", C.c_char_p), ("period", C.c_double), ("offset", C.c_double),
                ("nrow", C.c_int), ("ncol", C.c_int), ("nnz", C.c_int),
                ("colptr", c_int_p), ("rowind", c_int_p), ("jac", JAC_FN)]


VOID_CTX = C.CFUNCTYPE(None, C.c_void_p)
SET_DOUBLE = C.CFUNCTYPE(None, C.c_void_p, C.c_double)
SET_PTR = C.CFUNCTYPE(None, C.c_void_p, C.c_void_p)
SET_INT = C.CFUNCTYPE(None, C.c_void_p, C.c_int)
EVAL_IDX = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_int, C.POINTER(c_double_p))


class Model(C.Structure):
    _fields_ = [
        ("abi_version", C.c_int), ("name", C.c_char_p), ("context_size", C.c_size_t),
        ("state_offset", C.c_size_t), ("state_size", C.c_size_t), ("time_offset", C.c_size_t),
        ("xc_offset", C.c_size_t), ("xd_offset", C.c_size_t),
        ("nq", C.c_int), ("nv", C.c_int), ("nz", C.c_int), ("nxc", C.c_int), ("nxd", C.c_int),
        ("xc_names", C.POINTER(C.c_char_p)), ("xd_names", C.POINTER(C.c_char_p)),
        ("n_leaves", C.c_int), ("leaf_names", C.POINTER(C.c_char_p)),
        ("n_outputs", C.c_int), ("outputs", C.POINTER(ValueDesc)),
        ("n_cache", C.c_int), ("cache", C.POINTER(CacheDesc)),
        ("n_sources", C.c_int), ("sources", C.POINTER(SourceDesc)),
        ("n_events", C.c_int), ("events", C.POINTER(EventDesc)),
        ("n_loggers", C.c_int), ("loggers", C.POINTER(LoggerDesc)),
        ("n_eval_offset", C.c_size_t), ("n_calc_offset", C.c_size_t), ("n_inval_offset", C.c_size_t),
        ("default_accuracy", C.c_double),
        ("init", VOID_CTX), ("set_time", SET_DOUBLE), ("set_accuracy", SET_DOUBLE),
        ("set_xc", SET_PTR), ("mutable_xc", C.c_void_p), ("set_state", SET_PTR),
        ("calc_derivatives", C.CFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(c_double_p))),
        ("set_caching", SET_INT), ("freeze_cache", SET_INT), ("invalidate_all", VOID_CTX),
        ("set_source", C.CFUNCTYPE(None, C.c_void_p, C.c_int, C.c_void_p)),
        ("eval_output", EVAL_IDX), ("eval_cache", EVAL_IDX),
        ("n_witnesses", C.c_int), ("witnesses", C.POINTER(WitnessDesc)),
        ("n_timed", C.c_int), ("timed", C.POINTER(TimedDesc)),
        ("jac_xc_nnz", C.c_int), ("jac_xc_colptr", c_int_p), ("jac_xc_rowind", c_int_p),
        ("jac_xc", JAC_FN),
        ("n_lin_outputs", C.c_int), ("lin_outputs", c_int_p),
        ("n_lin_inputs", C.c_int), ("lin_inputs", c_int_p),
        ("jac_lin_nrow", C.c_int), ("jac_lin_ncol", C.c_int), ("jac_lin_nnz", C.c_int),
        ("jac_lin_colptr", c_int_p), ("jac_lin_rowind", c_int_p), ("jac_lin", JAC_FN),
        ("lin_time_period", C.c_double),
        ("n_jac_fd", C.c_int), ("jac_fd_calcs", C.POINTER(C.c_char_p)),
        ("n_jac_params", C.c_int), ("jac_params", c_int_p),
        ("jac_p_nrow", C.c_int), ("jac_p_ncol", C.c_int), ("jac_p_nnz", C.c_int),
        ("jac_p_colptr", c_int_p), ("jac_p_rowind", c_int_p), ("jac_p", JAC_FN),
        ("n_jac_updates", C.c_int), ("jac_updates", C.POINTER(JacUpdateDesc)),
        ("first_jac_cache", C.c_int),
    ]


# source kinds (DIAGC_SRC_*)
SRC_TIME, SRC_ACCURACY, SRC_Q, SRC_V, SRC_Z, SRC_XD, SRC_XA, SRC_PN, SRC_PA, SRC_FIXED_INPUT, SRC_INPUT = range(11)

JACOBIAN_MODEL, JACOBIAN_FD = 0, 1


class SimOptions(C.Structure):
    _fields_ = [("integrator", C.c_char_p), ("accuracy", C.c_double), ("max_step", C.c_double),
                ("error_control", C.c_int), ("fixed_step", C.c_double), ("initial_step", C.c_double),
                ("min_step", C.c_double), ("suppress_initialization_events", C.c_int),
                ("check_finite", C.c_int), ("jacobian", C.c_int), ("max_steps", C.c_int64)]


class SimStatistics(C.Structure):
    _fields_ = ([(n, C.c_int64) for n in ("steps", "integrator_steps", "rejected_steps",
                                          "derivative_evals", "discrete_updates", "unrestricted_updates",
                                          "publishes", "log_rows")]
                + [(n, C.c_double) for n in ("initial_step", "smallest_step", "largest_step",
                                             "smallest_adapted_step")]
                + [(n, C.c_int64) for n in ("witness_triggers", "newton_failures", "jacobian_evals",
                                            "lu_factorizations", "newton_iterations")]
                + [("jacobian_source", C.c_int), ("stiffness_tests", C.c_int64),
                   ("stiffness_hits", C.c_int64)]
                + [(n, C.c_double) for n in ("stability_limit", "stiff_time", "stiff_step",
                                             "stiff_hlambda")])


class PyLog(C.Structure):
    """python/diagc/collect.c's diagc_py_log."""
    _fields_ = [("n_loggers", C.c_int), ("width", C.c_int), ("sizes", c_int_p),
                ("rows", C.c_size_t), ("cap", C.c_size_t), ("t", c_double_p), ("values", c_double_p),
                ("fired", C.POINTER(C.c_ubyte)), ("failed", C.c_int), ("full_rows", C.c_size_t)]


LOG_FN = C.CFUNCTYPE(None, C.c_void_p, C.c_double, C.POINTER(C.c_ubyte), C.POINTER(c_double_p))

LINEARIZE, FIRST_ORDER_TAYLOR = 0, 1
LIN_NONE, LIN_ALL = -1, -2


class LinearizeOptions(C.Structure):
    _fields_ = [("mode", C.c_int), ("input", C.c_int), ("output", C.c_int), ("jacobian", C.c_int),
                ("equilibrium_tolerance", C.c_double)]


class LinearSystem(C.Structure):
    _fields_ = [("nx", C.c_int), ("nu", C.c_int), ("ny", C.c_int)] + \
        [(n, c_double_p) for n in ("A", "B", "C", "D", "f0", "y0", "x0", "u0")] + \
        [("time_period", C.c_double)]


def find_root():
    """The diagc tree this package belongs to: a checkout (python/diagc here,
    bin/diagc and lib/ two levels up) or an installed prefix (the package in
    a site directory under PREFIX, share/diagc/VERSION and bin/diagc there).
    DIAGC_PREFIX overrides.  Returns (root, include_dir, lib_dir, diagc_exe)."""
    env = os.environ.get("DIAGC_PREFIX")
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [env] if env else []
    d = here
    for _ in range(8):
        d = os.path.dirname(d)
        candidates.append(d)
    for root in candidates:
        exe = os.path.join(root, "bin", "diagc")
        if not os.path.isfile(exe):
            continue
        if os.path.isfile(os.path.join(root, "runtime", "include", "diagc", "model.h")):
            return root, os.path.join(root, "runtime", "include"), os.path.join(root, "lib"), exe
        if os.path.isfile(os.path.join(root, "include", "diagc", "model.h")):
            return root, os.path.join(root, "include"), os.path.join(root, "lib"), exe
    raise ImportError("diagc: no diagc tree around %s (no bin/diagc with its headers above it); "
                      "run make (or make install), or set DIAGC_PREFIX" % here)


_lib = None


def runtime():
    """The shared runtime, lib/libdiagc.so, with its functions declared."""
    global _lib
    if _lib is not None:
        return _lib
    _root, _inc, libdir, _exe = find_root()
    path = os.path.join(libdir, "libdiagc.so")
    if not os.path.exists(path):
        raise ImportError("diagc: %s is missing: run make" % path)
    L = C.CDLL(path, mode=C.RTLD_GLOBAL)
    P = C.c_void_p
    sig = {
        "diagc_status_message": (C.c_char_p, [C.c_int]),
        "diagc_status_name": (C.c_char_p, [C.c_int]),
        "diagc_sim_options_init": (None, [C.POINTER(SimOptions)]),
        "diagc_sim_create_ex": (P, [C.POINTER(Model), C.POINTER(SimOptions), C.c_char_p, C.c_size_t]),
        "diagc_sim_destroy": (None, [P]),
        "diagc_sim_context": (P, [P]),
        "diagc_sim_time": (C.c_double, [P]),
        "diagc_sim_set_log_callback": (None, [P, P, P]),
        "diagc_sim_initialize": (C.c_int, [P]),
        "diagc_sim_advance_to": (C.c_int, [P, C.c_double]),
        "diagc_sim_error": (C.c_char_p, [P]),
        "diagc_sim_stats": (C.c_int, [P, C.POINTER(SimStatistics)]),
        "diagc_integrator_known": (C.c_int, [C.c_char_p]),
        "diagc_linearize_options_init": (None, [C.POINTER(LinearizeOptions)]),
        "diagc_linearize_sizes": (C.c_int, [C.POINTER(Model), C.POINTER(LinearizeOptions), c_int_p, c_int_p,
                                            c_int_p]),
        "diagc_linearize": (C.c_int, [C.POINTER(Model), P, C.POINTER(LinearizeOptions), C.POINTER(LinearSystem),
                                      C.c_char_p, C.c_size_t]),
        "diagc_eigenvalues": (C.c_int, [C.c_int, c_double_p, c_double_p, c_double_p]),
    }
    for name, (res, args) in sig.items():
        f = getattr(L, name)
        f.restype, f.argtypes = res, args
    _lib = L
    return L


def status_message(rc):
    return runtime().diagc_status_message(rc).decode()
