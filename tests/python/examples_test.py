"""examples/python/*.py run as a user runs them: the cart-pole LQR's gain
from SciPy equals the one diagc designed at generation (an independent
Riccati solver) and balances the pole; the trajectory optimization
reaches its goal.  Without SciPy the LQR example is a skip."""
import os
import re
import subprocess
import sys

import harness
from harness import ROOT, done, test


def run(name):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", name)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert r.returncode == 0, "exit status %d: %s" % (r.returncode, r.stdout.strip().splitlines()[-1:])
    return r.stdout


def number(pattern, text):
    m = re.search(pattern, text)
    assert m, "no %r in %r" % (pattern, text[-300:])
    return float(m.group(1))


def cartpole_lqr():
    out = run("cartpole_lqr.py")
    if out.startswith("skip:"):
        print("skip python.examples.cartpole_lqr: SciPy is not installed (python3-scipy)")
        return
    assert number(r"max relative difference (\S+)", out) < 1e-9, out
    assert number(r"\|angle\| <= (\S+) after", out) < 1e-3, out
    print("ok python.examples.cartpole_lqr")


try:
    cartpole_lqr()
except Exception as e:  # noqa: BLE001
    harness.failures += 1
    print("FAIL python.examples.cartpole_lqr: %s" % str(e).splitlines()[0])


@test
def trajopt():
    out = run("trajopt.py")
    assert abs(number(r"final cart position (\S+) m", out) - 1.0) < 1e-3, out
    assert abs(number(r"speed (\S+) m/s", out)) < 1e-3, out
    assert abs(number(r"pole angle (\S+) rad", out)) < 1e-3, out
    assert number(r"iteration +\d+: cost \S+, \|gradient\| (\S+)\n[^i]", out + "\nx") < 1e-5, out


done()
