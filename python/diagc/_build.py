"""diagc._build: diagc.build(spec) -- generate a model's C with the diagc
executable, compile it into a shared library that links the shared runtime,
and load it.

Next to OUT.so it leaves OUT.c and OUT.h (the generated model), OUT_entry.c
(one exported function, diagc_python_model(), returning the descriptor, so
that load() needs no model name; the library also holds collect.c, the
loggers' callback simulate() uses) and OUT.json (`diagc info --json`: the
ports and worlds, which the descriptor does not carry), the generator
writing OUT.c, OUT.h and OUT.json in one run (`--info`).
"""
import atexit
import json
import os
import re
import shutil
import subprocess
import tempfile

from . import _c
from ._errors import DiagcError

_TEMPDIRS = []


def _cleanup():
    for d in _TEMPDIRS:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup)


def _one_line(text, fallback):
    """diagc's one-line message from a failed command's stderr (the last
    line starting with "diagc:", else the last non-empty line)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if ln.startswith("diagc:"):
            return ln
    return lines[-1] if lines else fallback


def _run(cmd, what, timeout):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise DiagcError("diagc: %s took longer than %g s (timeout=)" % (what, timeout)) from None
    except OSError as e:
        raise DiagcError("diagc: cannot run %s: %s" % (cmd[0], e.strerror)) from None
    if r.returncode != 0:
        raise DiagcError(_one_line(r.stderr, "diagc: %s failed with exit status %d" % (what, r.returncode)))
    return r.stdout


def build(spec, out=None, cc=None, cflags=("-O2",), timeout=600, load=True):
    """Generate and compile SPEC (a Lua spec file) into the shared library
    OUT (default: a temporary directory removed at exit) and return the
    loaded Model (or OUT's path with load=False).  A bad spec raises
    DiagcError with the generator's one-line message."""
    spec = os.fspath(spec)
    if not os.path.isfile(spec):
        raise DiagcError("diagc: %s: no such spec file; give the path of a .lua spec" % spec)
    _root, inc, libdir, exe = _c.find_root()
    if out is None:
        d = tempfile.mkdtemp(prefix="diagc-py-")
        _TEMPDIRS.append(d)
        out = os.path.join(d, os.path.splitext(os.path.basename(spec))[0] + ".so")
    out = os.path.abspath(os.fspath(out))
    if not out.endswith(".so"):
        raise DiagcError("diagc: %s: the shared library's name must end in .so" % out)
    base = out[:-3]
    if not os.path.isdir(os.path.dirname(out)):
        raise DiagcError("diagc: %s: no such folder for the shared library; create it first" % os.path.dirname(out))
    # one run of the generator writes OUT.c, OUT.h and OUT.json (--info:
    # the document of `diagc info --json`, from the same generation)
    _run([exe, spec, "-o", base + ".c", "--info", base + ".json"], "generating " + spec, timeout)
    with open(base + ".h") as f:
        m = re.search(r"extern const diagc_model (\w+)_model;", f.read())
    if not m:
        raise DiagcError("diagc: %s.h declares no descriptor (extern const diagc_model P_model)" % base)
    header = os.path.basename(base) + ".h"
    with open(base + "_entry.c", "w") as f:
        f.write('#include "%s"\n/* the descriptor, under a fixed name (diagc.load) */\n'
                "const diagc_model *diagc_python_model(void);\n"
                "const diagc_model *diagc_python_model(void) { return &%s_model; }\n" % (header, m.group(1)))
    cc = cc or os.environ.get("CC", "cc")
    tmp = out + ".tmp%d" % os.getpid()
    collect = os.path.join(os.path.dirname(os.path.abspath(__file__)), "collect.c")
    cmd = [cc, "-std=c99", "-fPIC", "-shared", *cflags, "-I", inc, "-I", os.path.dirname(base),
           base + ".c", base + "_entry.c", collect, "-o", tmp, "-L", libdir, "-Wl,-rpath," + libdir, "-ldiagc", "-lm"]
    try:
        _run(cmd, "compiling " + base + ".c", timeout)
        os.replace(tmp, out)  # atomically: a failed build leaves no OUT.so
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    if not load:
        return out
    from ._model import load as _load
    return _load(out)
