"""diagc._linear: linearize (diagc/linearize.h) and the generated Jacobians
(docs/jacobians.md) as dense NumPy arrays."""
import ctypes as C
from types import SimpleNamespace

import numpy as np

from . import _c
from ._errors import as_float, fail
from ._model import _hint


def _port(m, which, arg, idx_array, count, table):
    """The k of a named port among lin_inputs / lin_outputs, or LIN_ALL / LIN_NONE."""
    if arg is None or arg == "all":
        return _c.LIN_ALL
    if arg == "none":
        return _c.LIN_NONE
    names = [table(idx_array[k]) for k in range(count)]
    if arg in names:
        return names.index(arg)
    fail("linearize: %s %r is not one of the model's %s (%s)%s", which, arg, which + "s",
         ", ".join(names) or "none", _hint(str(arg), names))


def linearize(ctx, mode="linearize", input=None, output=None, jacobian="model", tolerance=1e-6):
    """A, B, C, D (and f0, y0, x0, u0, time_period) at the context, with
    Drake's semantics: mode "linearize" (an equilibrium; deviation
    coordinates) or "first_order_taylor" (affine, anywhere).  input /
    output: an exported input / output port name, "all" (default) or
    "none"; jacobian: "model" (generated) or "fd" (central differences).
    The result's inputs and outputs name the ports of B's columns and C's
    rows (each port's elements in order)."""
    m = ctx.model
    d = m.d
    lib = _c.runtime()
    o = _c.LinearizeOptions()
    lib.diagc_linearize_options_init(C.byref(o))
    if mode not in ("linearize", "first_order_taylor"):
        fail("linearize: mode must be 'linearize' or 'first_order_taylor', got %r", mode)
    o.mode = _c.LINEARIZE if mode == "linearize" else _c.FIRST_ORDER_TAYLOR
    if jacobian not in ("model", "fd"):
        fail("linearize: jacobian must be 'model' or 'fd', got %r", jacobian)
    o.jacobian = _c.JACOBIAN_MODEL if jacobian == "model" else _c.JACOBIAN_FD
    tol = as_float(tolerance, "linearize: tolerance")
    if not np.isfinite(tol) or tol <= 0:
        fail("linearize: tolerance must be a finite number > 0, got %r", tolerance)
    o.equilibrium_tolerance = tol
    o.input = _port(m, "input", input, d.lin_inputs, d.n_lin_inputs, lambda i: d.sources[i].name.decode())
    o.output = _port(m, "output", output, d.lin_outputs, d.n_lin_outputs, lambda i: d.outputs[i].name.decode())
    nx, nu, ny = C.c_int(), C.c_int(), C.c_int()
    rc = lib.diagc_linearize_sizes(m._pdesc, C.byref(o), C.byref(nx), C.byref(nu), C.byref(ny))
    if rc != 0:
        fail("linearize: %s", _c.status_message(rc))
    nx, nu, ny = nx.value, nu.value, ny.value
    arrs = {"A": (nx, nx), "B": (nx, nu), "C": (ny, nx), "D": (ny, nu), "f0": (nx,), "y0": (ny,),
            "x0": (nx,), "u0": (nu,)}
    out = {k: np.zeros(s) for k, s in arrs.items()}
    ls = _c.LinearSystem(nx, nu, ny)
    for k, a in out.items():
        setattr(ls, k, a.ctypes.data_as(_c.c_double_p) if a.size else None)
    err = C.create_string_buffer(512)
    rc = lib.diagc_linearize(m._pdesc, ctx.ptr, C.byref(o), C.byref(ls), err, len(err))
    if rc != 0:
        fail("linearize: %s", err.value.decode() or _c.status_message(rc))
    ins = [d.sources[d.lin_inputs[k]].name.decode() for k in range(d.n_lin_inputs)]
    outs = [d.outputs[d.lin_outputs[k]].name.decode() for k in range(d.n_lin_outputs)]
    pick = lambda names, k: names if k == _c.LIN_ALL else [] if k == _c.LIN_NONE else [names[k]]
    return SimpleNamespace(time_period=ls.time_period, inputs=pick(ins, o.input), outputs=pick(outs, o.output),
                           **out)


def _dense(nrow, ncol, colptr, rowind, nz):
    J = np.zeros((nrow, ncol))
    for j in range(ncol):
        for k in range(colptr[j], colptr[j + 1]):
            J[rowind[k], j] = nz[k]
    return J


def jacobian(ctx, which, k=0):
    """A generated Jacobian, dense: jac_xc (d xcdot / d xc), jac_lin
    (d(xcdot, y) / d(xc, u)), jac_p (d(xcdot, y) / d p), jac_update k."""
    m = ctx.model
    d = m.d
    if which == "jac_xc":
        f, nrow, ncol, nnz, cp, ri = d.jac_xc, d.nxc, d.nxc, d.jac_xc_nnz, d.jac_xc_colptr, d.jac_xc_rowind
    elif which == "jac_lin":
        f, nrow, ncol, nnz, cp, ri = d.jac_lin, d.jac_lin_nrow, d.jac_lin_ncol, d.jac_lin_nnz, \
            d.jac_lin_colptr, d.jac_lin_rowind
    elif which == "jac_p":
        f, nrow, ncol, nnz, cp, ri = d.jac_p, d.jac_p_nrow, d.jac_p_ncol, d.jac_p_nnz, \
            d.jac_p_colptr, d.jac_p_rowind
    else:
        if not isinstance(k, int) or not 0 <= k < d.n_jac_updates:
            fail("update_jacobian: the model has %d periodic update timing%s; k = %r is not one",
                 d.n_jac_updates, "" if d.n_jac_updates == 1 else "s", k)
        u = d.jac_updates[k]
        which = u.name.decode()
        f, nrow, ncol, nnz, cp, ri = u.jac, u.nrow, u.ncol, u.nnz, u.colptr, u.rowind
    if not f:
        fail("%s: the model has no generated %s (a calc on its path is outside the differentiable "
             "subset, or none was asked for; diagc info lists the model's Jacobians)", which, which)
    nz = np.zeros(max(nnz, 1))
    rc = f(ctx.ptr, nz.ctypes.data_as(_c.c_double_p))
    if rc != 0:
        fail("%s failed with status %d (%s)", which, rc, _c.status_message(rc))
    return _dense(nrow, ncol, cp, ri, nz)
