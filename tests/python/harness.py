"""tests/python/harness.py: what every tests/python/*_test.py shares: the
checkout's python/ on the path, the checkout's root, and test(): each
test function prints "ok python.<file>.<name>" or "FAIL ...: why" (an
exception's one line) for tests/run to count."""
import os
import sys
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
FILE = os.path.basename(sys.argv[0]).replace("_test.py", "")
failures = 0


def test(fn):
    global failures
    name = "python.%s.%s" % (FILE, fn.__name__)
    try:
        fn()
        print("ok " + name)
    except Exception as e:  # noqa: BLE001 -- any failure is the test's
        failures += 1
        where = traceback.extract_tb(e.__traceback__)[-1]
        print("FAIL %s: %s:%d: %s: %s" % (name, os.path.basename(where.filename), where.lineno,
                                          type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    sys.stdout.flush()
    return fn


def raises(fn, *pieces):
    """fn() must raise DiagcError whose message starts with 'diagc: ', is
    one line and holds every piece; returns the message."""
    import diagc
    try:
        fn()
    except diagc.DiagcError as e:
        msg = str(e)
        assert msg.startswith("diagc: "), "not diagc's one line: %r" % msg
        assert "\n" not in msg, "more than one line: %r" % msg
        for p in pieces:
            assert p in msg, "%r not in %r" % (p, msg)
        return msg
    raise AssertionError("no DiagcError (expected one with %r)" % (pieces,))


def close(a, b, tol, what):
    import numpy as np
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, "%s: shape %s, expected %s" % (what, a.shape, b.shape)
    err = float(np.max(np.abs(a - b))) if a.size else 0.0
    assert err <= tol, "%s: max |error| %.3g > %.3g" % (what, err, tol)


def tmpdir():
    """A scratch folder removed at exit."""
    import atexit
    import shutil
    import tempfile
    d = tempfile.mkdtemp(prefix="diagc-pytest-")
    atexit.register(shutil.rmtree, d, True)
    return d


def spec(rel):
    return os.path.join(ROOT, rel)


def done():
    sys.exit(1 if failures else 0)
