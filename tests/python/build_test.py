"""diagc.build and diagc.load: a spec built into a shared library and
loaded (again, and by its model name); a bad spec and bad paths raise
DiagcError with diagc's one line, and a bad spec writes no library."""
import os

from harness import ROOT, close, done, raises, spec, test, tmpdir

import diagc

tmp = tmpdir()


@test
def build_and_load():
    out = os.path.join(tmp, "sm.so")
    m = diagc.build(spec("examples/spring_mass.lua"), out=out)
    assert m.name == "spring_mass", m.name
    for f in ("sm.so", "sm.c", "sm.h", "sm.json", "sm_entry.c"):
        assert os.path.isfile(os.path.join(tmp, f)), f
    assert m.states == ["spring.q", "spring.v"], m.states
    assert m.parameters == ["spring.stiffness", "spring.mass"], m.parameters
    assert m.state_names == ["spring.position", "spring.velocity"], m.state_names
    assert m.loggers == [("spring.x", 1)], m.loggers
    # the generator's --info document is `diagc info --json`'s, byte for byte
    import subprocess
    info = subprocess.run([os.path.join(ROOT, "bin", "diagc"), "info", spec("examples/spring_mass.lua"), "--json"],
                          stdout=subprocess.PIPE, check=True, timeout=120).stdout
    with open(os.path.join(tmp, "sm.json"), "rb") as f:
        assert f.read() == info, "sm.json differs from diagc info --json"
    again = diagc.load(out)
    close(again.context().xc, [1.0, 0.0], 0, "xc of the loaded model")
    by_name = diagc.load(out, name="spring_mass")
    assert by_name.name == "spring_mass"


@test
def build_without_out_is_temporary():
    m = diagc.build(spec("examples/discrete_counter.lua"))
    assert os.path.isfile(m.path) and m.path.endswith("discrete_counter.so"), m.path


@test
def bad_spec_one_line_nothing_written():
    bad = os.path.join(tmp, "bad.lua")
    with open(bad, "w") as f:
        f.write('local L = leaf "L" {\n  continuous_state { q = { "x" } },\n'
                '  derivatives { calc = [[ qdot[0] = nosuch[0]; ]] },\n}\n'
                'return diagram "bad" { system { "l", L } }\n')
    out = os.path.join(tmp, "bad.so")
    raises(lambda: diagc.build(bad, out=out), "diagc: %s:3: " % bad, "'nosuch' undeclared")
    assert not os.path.exists(out), "a bad spec left " + out


@test
def library_built_elsewhere():
    # the generated C compiled by hand: no diagc_python_model(), no
    # collect.c (simulate collects the logs in Python then): the same logs
    import subprocess
    from diagc import _c
    _root, inc, libdir, _exe = _c.find_root()
    so = os.path.join(tmp, "hand.so")
    subprocess.run(["cc", "-std=c99", "-O2", "-fPIC", "-shared", "-I", inc, os.path.join(tmp, "sm.c"), "-o", so,
                    "-L", libdir, "-Wl,-rpath," + libdir, "-ldiagc", "-lm"], check=True)
    raises(lambda: diagc.load(so), "exports no diagc_python_model(); give the model name")
    hand = diagc.load(so, name="spring_mass")
    built = diagc.load(os.path.join(tmp, "sm.so"))
    a, b = hand.simulate(until=1.0), built.simulate(until=1.0)
    assert a["spring.x"].tobytes() == b["spring.x"].tobytes() and len(a["spring.x"]) == 101


@test
def rebuilt_in_place():
    # the same out= built again from a changed spec: the new model, not the
    # library the process loaded first under that name
    src = open(spec("examples/spring_mass.lua")).read()
    lua, out = os.path.join(tmp, "k.lua"), os.path.join(tmp, "k.so")
    for k in ("1.0", "9.0"):
        with open(lua, "w") as f:
            f.write(src.replace('parameter { "stiffness", default = { 1.0 } }',
                                'parameter { "stiffness", default = { %s } }' % k))
        m = diagc.build(lua, out=out)
        close(m.context().get_param("spring.stiffness"), [float(k)], 0, "stiffness of the build with " + k)


@test
def bad_paths():
    raises(lambda: diagc.build(os.path.join(tmp, "none.lua")), "no such spec file")
    raises(lambda: diagc.build(spec("examples/spring_mass.lua"), out=os.path.join(tmp, "x", "y.so")),
           "no such folder")
    raises(lambda: diagc.build(spec("examples/spring_mass.lua"), out=os.path.join(tmp, "y.dll")), "end in .so")
    raises(lambda: diagc.load(os.path.join(tmp, "none.so")), "no such shared library")
    raises(lambda: diagc.load(os.path.join(tmp, "sm.so"), name="nosuch"), "no descriptor nosuch_model")
    junk = os.path.join(tmp, "junk.so")
    with open(junk, "w") as f:
        f.write("not a library\n")
    raises(lambda: diagc.load(junk), "cannot load")


done()
