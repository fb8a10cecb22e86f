"""The package against diagc's own commands on the same models: the CSV of
`diagc run` (same integrator, parameters and initial state) equals
simulate's logs bit for bit, and `diagc linearize --format json` equals
linearize's A, B, C, D."""
import csv
import io
import json
import os
import subprocess

import numpy as np

from harness import ROOT, done, spec, test

import diagc

DIAGC = os.path.join(ROOT, "bin", "diagc")
pend = diagc.build(spec("examples/pendulum.lua"))


def cli(*args):
    return subprocess.run([DIAGC, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          check=True, timeout=120).stdout


@test
def simulate_equals_diagc_run():
    for integ in ("runge_kutta3", "radau5"):
        out = cli("run", spec("examples/pendulum.lua"), "--until", "2", "--integrator", integ,
                  "-p", "pend.damping=0.3", "--state", "pend.theta=1.25")
        rows = list(csv.reader(io.StringIO(out)))
        assert rows[0] == ["t", "pend.angle", "pend.energy"], rows[0]
        table = np.array([[float(x) for x in r] for r in rows[1:]])
        c = pend.context()
        c.set_param("pend.damping", 0.3)
        c.set_state("pend.theta", 1.25)
        logs = c.simulate(until=2.0, integrator=integ)
        for k, name in ((1, "pend.angle"), (2, "pend.energy")):
            assert np.array_equal(logs[name]["t"], table[:, 0]), "%s: %s's times" % (integ, name)
            assert np.array_equal(logs[name]["value"], table[:, k]), "%s: %s's values" % (integ, name)


@test
def linearize_equals_diagc_linearize():
    for theta in (np.pi, 0.0):
        out = json.loads(cli("linearize", spec("examples/pendulum.lua"), "--state",
                             "pend.theta=%r" % theta, "--format", "json"))
        c = pend.context()
        c.set_state("pend.theta", theta)
        lin = c.linearize()
        for key in ("A", "C"):
            assert np.array_equal(np.array(out[key], dtype=float), getattr(lin, key)), (key, out[key])
        assert out["outputs"] == lin.outputs, (out["outputs"], lin.outputs)


done()
