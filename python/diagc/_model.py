"""diagc._model: a loaded model (its descriptor) and its contexts.

A Context is the model's flat, pointer-free context (context_size bytes in
a NumPy-owned buffer): clone() is a copy of the bytes.  Values are read and
written by name through the descriptor's sources (set_source applies the
precomputed invalidation), as NumPy float64 arrays.
"""
import ctypes as C
import difflib
import json
import os

import numpy as np

from . import _c
from ._errors import DiagcError, as_float, fail

STATE_KINDS = (_c.SRC_Q, _c.SRC_V, _c.SRC_Z, _c.SRC_XD)
KIND_WORDS = {"state": "state", "param": "parameter", "input": "input"}


def _s(b):
    return b.decode() if b is not None else None


def _hint(name, names):
    close = difflib.get_close_matches(name, list(names), n=1)
    return "; did you mean '%s'?" % close[0] if close else ""


_LOADED = {}  # path -> (device, inode) of the file this process loaded from it


def _fresh(path):
    """The path to dlopen: PATH itself, or, when this process loaded an
    earlier file of that name (diagc.build writing the same out= again),
    a copy under a new name: the dynamic loader would hand back the old
    library for the old name."""
    st = os.stat(path)
    ident = (st.st_dev, st.st_ino, st.st_mtime_ns)
    seen = _LOADED.setdefault(path, ident)
    if seen == ident:
        return path
    import shutil
    import tempfile
    from ._build import _TEMPDIRS
    d = tempfile.mkdtemp(prefix="diagc-py-")
    _TEMPDIRS.append(d)
    copy = os.path.join(d, os.path.basename(path))
    shutil.copy2(path, copy)
    return copy


def load(path, name=None):
    """Load the shared library PATH (from diagc.build, or any library that
    exports a generated model's descriptor: give its model NAME, the
    symbol NAME_model, when it lacks diagc_python_model())."""
    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        fail("%s: no such shared library; build one with diagc.build(spec)", path)
    _c.runtime()  # its symbols first (RTLD_GLOBAL), for models linked without it
    try:
        lib = C.CDLL(_fresh(path))
    except OSError as e:
        fail("%s: cannot load: %s", path, str(e).splitlines()[0])
    if name is not None:
        try:
            desc = C.pointer(_c.Model.in_dll(lib, name + "_model"))
        except ValueError:
            fail("%s: no descriptor %s_model in it; give the model's name (its root diagram's)", path, name)
    else:
        try:
            f = lib.diagc_python_model
        except AttributeError:
            fail("%s: exports no diagc_python_model(); give the model name: diagc.load(path, name='P')", path)
        f.restype = C.POINTER(_c.Model)
        desc = f()
    info = None
    if path.endswith(".so") and os.path.isfile(path[:-3] + ".json"):
        with open(path[:-3] + ".json") as fh:
            info = json.load(fh)
    return Model(lib, desc, path, info)


class Model:
    """A generated model: its descriptor's names and sizes."""

    def __init__(self, lib, desc, path, info=None):
        d = desc.contents
        if d.abi_version != _c.ABI_VERSION:
            fail("%s: model ABI version %d, this package speaks %d; regenerate it with this diagc",
                 path, d.abi_version, _c.ABI_VERSION)
        self._lib, self._pdesc, self.d, self.path, self.info = lib, desc, d, path, info
        self.name = _s(d.name)
        self.sources = {}
        for i in range(d.n_sources):
            s = d.sources[i]
            self.sources[_s(s.name)] = (i, s.kind, s.size, s.offset)
        self.outputs = {_s(d.outputs[i].name): (i, d.outputs[i].size) for i in range(d.n_outputs)}
        self.cache = {_s(d.cache[i].name): (i, d.cache[i].size) for i in range(d.n_cache)}
        self.elements = {}
        for i in range(d.nxc):
            self.elements[_s(d.xc_names[i])] = d.xc_offset + 8 * i
        for i in range(d.nxd):
            self.elements[_s(d.xd_names[i])] = d.xd_offset + 8 * i
        self.loggers = [(_s(d.loggers[i].name), d.loggers[i].size) for i in range(d.n_loggers)]
        self.nxc, self.nxd = d.nxc, d.nxd

    def _names(self, kinds):
        return [n for n, s in self.sources.items() if s[1] in kinds and s[2] > 0]

    @property
    def states(self):
        """Settable state groups ("spring.q", "plant.pos")."""
        return self._names(STATE_KINDS)

    @property
    def parameters(self):
        return self._names((_c.SRC_PN,))

    @property
    def inputs(self):
        return self._names((_c.SRC_INPUT, _c.SRC_FIXED_INPUT))

    @property
    def abstract(self):
        """Abstract (C-typed) states and parameters: name -> byte size
        (Context.set_abstract, get_abstract)."""
        return {n: self.d.sources[s[0]].byte_size for n, s in self.sources.items()
                if s[1] in (_c.SRC_XA, _c.SRC_PA)}

    @property
    def state_names(self):
        """The state elements: xc then xd ("spring.position", "counter.x[0]")."""
        return list(self.elements)

    def context(self):
        """A new context at the model's defaults (time 0, every entry stale)."""
        return Context(self)

    def simulate(self, until, **opts):
        """Simulate from the default context: Context.simulate."""
        return self.context().simulate(until, **opts)

    def batch(self, t_final, **kw):
        """Many runs at once over the C batch API: diagc._batch.batch."""
        from ._batch import batch
        return batch(self, t_final, **kw)

    def __repr__(self):
        return "<diagc model %s from %s>" % (self.name, self.path)


class Context:
    """One context of a model: time, state, parameters, inputs, cache."""

    def __init__(self, model, _copy_from=None):
        self.model = model
        n = (model.d.context_size + 7) // 8
        self._buf = np.zeros(n, dtype=np.float64)
        self.ptr = C.c_void_p(self._buf.ctypes.data)
        if _copy_from is None:
            model.d.init(self.ptr)
        else:
            self._buf[:] = _copy_from._buf

    def clone(self):
        """A copy (the context is pointer-free: a copy of its bytes)."""
        return Context(self.model, _copy_from=self)

    def _read(self, offset, n):
        return np.frombuffer(self._buf, dtype=np.float64, count=n, offset=offset).copy()

    # -- time ---------------------------------------------------------------
    @property
    def time(self):
        return float(self._read(self.model.d.time_offset, 1)[0])

    @time.setter
    def time(self, t):
        t = as_float(t, "time")
        if not np.isfinite(t):
            fail("time: %r is not finite; give a finite time", t)
        self.model.d.set_time(self.ptr, t)

    # -- values by name -------------------------------------------------------
    def _values(self, what, value, n):
        try:
            if value is None or isinstance(value, (str, bytes)):
                raise TypeError  # NumPy would read None as nan, "1" as 1
            a = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            fail("%s: expects %d number%s, got %r", what, n, "" if n == 1 else "s", value)
        if a.size != n or a.ndim > 1 and a.squeeze().ndim > 1:
            fail("%s: it has %d value%s, got an array of shape %s", what, n, "" if n == 1 else "s",
                 tuple(a.shape))
        a = np.ascontiguousarray(a.reshape(n))
        bad = np.flatnonzero(~np.isfinite(a))
        if bad.size:
            fail("%s: value %d is %s; give finite numbers", what, bad[0] + 1, a[bad[0]])
        return a

    def _lookup(self, kind, name):
        """(source index, first element, count, source size) of a name of
        this kind, or an error naming the right kind or a close name."""
        m = self.model
        kinds = {"state": STATE_KINDS, "param": (_c.SRC_PN,),
                 "input": (_c.SRC_INPUT, _c.SRC_FIXED_INPUT)}[kind]
        s = m.sources.get(name)
        if s is not None and s[1] in (_c.SRC_XA, _c.SRC_PA):
            fail("'%s' is an abstract %s (a C value of %d bytes): use set_abstract / get_abstract", name,
                 "state" if s[1] == _c.SRC_XA else "parameter", m.d.sources[s[0]].byte_size)
        if s is not None and s[2] > 0:
            if s[1] not in kinds:
                other = [k for k, ks in (("state", STATE_KINDS), ("param", (_c.SRC_PN,)),
                                         ("input", (_c.SRC_INPUT, _c.SRC_FIXED_INPUT))) if s[1] in ks]
                if other:
                    fail("'%s' is %s %s, not %s %s; use set_%s", name, "an" if other[0] == "input" else "a",
                         KIND_WORDS[other[0]], "an" if kind == "input" else "a", KIND_WORDS[kind], other[0])
                fail("'%s' cannot be set", name)
            return s[0], 0, s[2], s[2], s[3]
        if kind == "state" and name in m.elements:
            off = m.elements[name]
            for sname, (i, k, size, so) in m.sources.items():
                if k in STATE_KINDS and so <= off < so + 8 * size:
                    return i, (off - so) // 8, 1, size, so
        names = [n for n, s in m.sources.items() if s[1] in kinds and s[2] > 0]
        if kind == "state":
            names += list(m.elements)
        fail("no %s named '%s' in model %s%s", KIND_WORDS[kind], name, m.name, _hint(name, names))

    def _get(self, kind, name):
        i, first, count, size, off = self._lookup(kind, name)
        return self._read(off + 8 * first, count)

    def _set(self, kind, name, value):
        i, first, count, size, off = self._lookup(kind, name)
        v = self._values(name, value, count)
        if count != size:
            whole = self._read(off, size)
            whole[first:first + count] = v
            v = whole
        self.model.d.set_source(self.ptr, i, v.ctypes.data_as(C.c_void_p))

    def get_state(self, name):
        return self._get("state", name)

    def set_state(self, name, value):
        self._set("state", name, value)

    def get_param(self, name):
        return self._get("param", name)

    def set_param(self, name, value):
        self._set("param", name, value)

    def get_input(self, name):
        return self._get("input", name)

    def set_input(self, name, value):
        self._set("input", name, value)

    def _abstract(self, name):
        m = self.model
        s = m.sources.get(name)
        if s is None or s[1] not in (_c.SRC_XA, _c.SRC_PA):
            if s is not None or name in m.elements:
                fail("'%s' is not abstract (it holds numbers): use get / set", name)
            fail("no abstract state or parameter named '%s' in model %s%s", name, m.name,
                 _hint(name, list(m.abstract)))
        return s[0], s[3], m.d.sources[s[0]].byte_size

    def set_abstract(self, name, value):
        """Sets an abstract state or parameter from the bytes of a value of
        its C type: a ctypes object (a Structure mirroring the typedef),
        bytes, or any buffer of exactly its size; applies its invalidation
        as the generated setter does."""
        i, _off, size = self._abstract(name)
        try:
            raw = bytes(memoryview(value).cast("B"))
        except TypeError:
            fail("%s: expects the %d bytes of its C type (a ctypes Structure, bytes or a buffer), got %s", name,
                 size, type(value).__name__)
        if len(raw) != size:
            fail("%s: its C type has %d bytes, got %d; mirror the typedef field for field", name, size, len(raw))
        buf = C.create_string_buffer(raw, size)
        self.model.d.set_source(self.ptr, i, C.cast(buf, C.c_void_p))

    def get_abstract(self, name, ctype=None):
        """The bytes of an abstract state or parameter, or with ctype (a
        ctypes type of the same size) a copy as that type."""
        _i, off, size = self._abstract(name)
        raw = self._buf.view(np.uint8)[off:off + size].tobytes()
        if ctype is None:
            return raw
        if not isinstance(ctype, type) or not hasattr(ctype, "from_buffer_copy") or C.sizeof(ctype) != size:
            fail("%s: ctype must be a ctypes type of %d bytes (its C type), got %r", name, size, ctype)
        return ctype.from_buffer_copy(raw)

    @property
    def xc(self):
        """The continuous state (q, v, z of every leaf; model.state_names)."""
        return self._read(self.model.d.xc_offset, self.model.nxc)

    @xc.setter
    def xc(self, value):
        v = self._values("xc", value, self.model.nxc)
        self.model.d.set_xc(self.ptr, v.ctypes.data_as(C.c_void_p))

    @property
    def xd(self):
        return self._read(self.model.d.xd_offset, self.model.nxd)

    def eval(self, name):
        """The value of an output port or a numeric cache entry, brought up to date."""
        m = self.model
        out = _c.c_double_p()
        if name in m.outputs:
            i, size = m.outputs[name]
            rc = m.d.eval_output(self.ptr, i, C.byref(out))
        elif name in m.cache:
            i, size = m.cache[name]
            rc = m.d.eval_cache(self.ptr, i, C.byref(out))
        else:
            fail("no output port or cache entry named '%s' in model %s%s", name, m.name,
                 _hint(name, list(m.outputs) + list(m.cache)))
        if rc != 0:
            fail("eval of '%s' failed with status %d (%s)", name, rc, _c.status_message(rc))
        if not out or size == 0:
            fail("'%s' is abstract (a C value): it has no numbers to read", name)
        return np.ctypeslib.as_array(out, shape=(size,)).copy()

    def get(self, name):
        """A time ("t"), a state, parameter or input (group or element), or
        an output or cache entry (evaluated), by name."""
        if name in ("t", "time"):
            return np.array([self.time])
        m = self.model
        s = m.sources.get(name)
        if s is not None and s[2] > 0:
            return self._read(s[3], s[2])
        if name in m.elements:
            return self._read(m.elements[name], 1)
        if name in m.outputs or name in m.cache:
            return self.eval(name)
        fail("nothing named '%s' in model %s%s", name, m.name,
             _hint(name, list(m.sources) + list(m.elements) + list(m.outputs)))

    def set(self, name, value):
        """Set the time, a state, parameter or input by name."""
        if name in ("t", "time"):
            self.time = float(np.asarray(value, dtype=np.float64).reshape(-1)[0])
            return
        m = self.model
        s = m.sources.get(name)
        kind = "state"
        if s is not None:
            kind = "param" if s[1] == _c.SRC_PN else "input" if s[1] in (_c.SRC_INPUT, _c.SRC_FIXED_INPUT) \
                else "state"
        elif name not in m.elements:
            fail("no settable source named '%s' in model %s%s", name, m.name,
                 _hint(name, list(m.sources) + list(m.elements)))
        self._set(kind, name, value)

    def derivatives(self):
        """d xc / dt at the context."""
        m = self.model
        out = _c.c_double_p()
        rc = m.d.calc_derivatives(self.ptr, C.byref(out))
        if rc != 0:
            fail("calc_derivatives failed with status %d (%s)", rc, _c.status_message(rc))
        return np.ctypeslib.as_array(out, shape=(m.nxc,)).copy() if m.nxc else np.zeros(0)

    def set_caching(self, on):
        self.model.d.set_caching(self.ptr, 1 if on else 0)

    def invalidate_all(self):
        self.model.d.invalidate_all(self.ptr)

    # -- the rest lives in modules of its own ---------------------------------
    def simulate(self, until, **opts):
        from ._sim import simulate
        return simulate(self, until, **opts)

    def linearize(self, **opts):
        from ._linear import linearize
        return linearize(self, **opts)

    def state_jacobian(self):
        from ._linear import jacobian
        return jacobian(self, "jac_xc")

    def lin_jacobian(self):
        from ._linear import jacobian
        return jacobian(self, "jac_lin")

    def parameter_jacobian(self):
        from ._linear import jacobian
        return jacobian(self, "jac_p")

    def update_jacobian(self, k=0):
        from ._linear import jacobian
        return jacobian(self, "jac_update", k)

    def step(self, world=None, effort=None):
        from ._world import step
        return step(self, world, effort)

    def step_jacobians(self, world=None):
        from ._world import step_jacobians
        return step_jacobians(self, world)

    def rollout(self, steps, effort=None, world=None):
        from ._world import rollout
        return rollout(self, steps, effort, world)

    def __repr__(self):
        return "<diagc context of %s at t=%g>" % (self.model.name, self.time)
