"""Abstract (C-typed) states and parameters from Python: set from a ctypes
Structure mirroring the spec's typedef (or bytes), read back as bytes or
as that Structure; setting one invalidates what depends on it (the
output follows at once) and a simulation carries it; the same values as
`diagc test`'s set_abstract gives; wrong sizes, types and names refused."""
import ctypes as C
import os
import subprocess

from harness import ROOT, close, done, raises, spec, test, tmpdir

import diagc

m = diagc.build(spec("tests/python/abstract.lua"))


class Tally(C.Structure):
    _fields_ = [("count", C.c_int), ("sum", C.c_double)]


class Cfg(C.Structure):
    _fields_ = [("step", C.c_double), ("twice", C.c_int)]


@test
def names_and_defaults():
    assert m.abstract == {"t.tally": C.sizeof(Tally), "t.cfg": C.sizeof(Cfg)}, m.abstract
    c = m.context()
    cfg = c.get_abstract("t.cfg", Cfg)
    assert (cfg.step, cfg.twice) == (1.0, 0), (cfg.step, cfg.twice)
    assert c.get_abstract("t.tally") == bytes(Tally(0, 0.0))


@test
def set_invalidates_and_simulates():
    c = m.context()
    c.set_abstract("t.tally", Tally(3, 1.5))
    close(c.eval("t.total"), [1.5], 0, "total after setting the tally")
    c.set_abstract("t.cfg", Cfg(0.25, 1))
    close(c.eval("t.total"), [3.0], 0, "total after setting twice = 1 (cached value invalidated)")
    logs = c.simulate(until=1.0)
    end = c.get_abstract("t.tally", Tally)
    ticks = end.count - 3
    assert ticks >= 10, end.count
    assert end.sum == 1.5 + 0.25 * ticks, (end.sum, ticks)
    close(logs["t.total"]["value"][-1], 2 * end.sum, 0, "the last logged total")
    d = c.clone()
    d.set_abstract("t.cfg", bytes(Cfg(2.0, 0)))
    assert c.get_abstract("t.cfg", Cfg).step == 0.25, "the clone's set changed the original"


@test
def equals_diagc_test_and_run():
    # the same sets in a diagc test file (LuaJIT's FFI values of the same
    # typedefs): the same output; a run from the defaults: diagc run's CSV
    path = os.path.join(tmpdir(), "abstract_test.lua")
    with open(path, "w") as f:
        f.write('local ffi = require("ffi")\n'
                'ffi.cdef("typedef struct { int count; double sum; } py_tally; '
                'typedef struct { double step; int twice; } py_cfg;")\n'
                'test("abstract", function()\n'
                '  local c = diagc.jit("%s"):context()\n'
                '  c:set_abstract("t.tally", ffi.new("py_tally[1]", {{ 7, 2.75 }}))\n'
                '  c:set_abstract("t.cfg", ffi.new("py_cfg[1]", {{ 0.25, 1 }}))\n'
                '  print(string.format("@@ %%.17g", c:eval("t.total")))\n'
                'end)\n' % spec("tests/python/abstract.lua"))
    diagc_exe = os.path.join(ROOT, "bin", "diagc")
    out = subprocess.run([diagc_exe, "test", path], stdout=subprocess.PIPE, text=True, timeout=120).stdout
    lua = [float(ln[3:]) for ln in out.splitlines() if ln.startswith("@@ ")]
    assert lua == [5.5], out
    c = m.context()
    c.set_abstract("t.tally", Tally(7, 2.75))
    c.set_abstract("t.cfg", Cfg(0.25, 1))
    close(c.eval("t.total"), lua, 0, "total against diagc test")
    out = subprocess.run([diagc_exe, "run", spec("tests/python/abstract.lua"), "--until", "1"],
                         stdout=subprocess.PIPE, check=True, text=True, timeout=120).stdout
    last = float(out.strip().splitlines()[-1].split(",")[1])
    c = m.context()
    logs = c.simulate(until=1.0)
    assert logs["t.total"]["value"][-1] == last, (logs["t.total"]["value"][-1], last)
    assert c.get_abstract("t.tally", Tally).sum == last


@test
def refusals():
    c = m.context()
    raises(lambda: c.set_abstract("t.tally", (C.c_int * 1)(5)), "t.tally: its C type has %d bytes, got 4"
           % C.sizeof(Tally))
    raises(lambda: c.set_abstract("t.tally", b"\0" * 3), "t.tally: its C type has %d bytes, got 3"
           % C.sizeof(Tally))
    raises(lambda: c.set_abstract("t.tally", 1.0), "t.tally: expects the %d bytes of its C type" % C.sizeof(Tally))
    raises(lambda: c.set_abstract("t.taly", Tally()), "no abstract state or parameter named 't.taly'",
           "did you mean 't.tally'?")
    raises(lambda: c.get_abstract("t.cfg", C.c_int), "t.cfg: ctype must be a ctypes type of %d bytes"
           % C.sizeof(Cfg))
    raises(lambda: c.set_param("t.cfg", 1.0), "'t.cfg' is an abstract parameter (a C value of %d bytes): use "
           "set_abstract" % C.sizeof(Cfg))
    raises(lambda: c.get_state("t.tally"), "'t.tally' is an abstract state")
    assert c.get_abstract("t.tally") == bytes(Tally(0, 0.0)), "unchanged after the refusals"


done()
