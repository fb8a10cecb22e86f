"""diagc._errors: the one exception class of the package."""


class DiagcError(Exception):
    """A diagc failure; str() is diagc's one-line message ("diagc: ..."):
    a bad spec (FILE:LINE[:COL]: what is wrong and how to fix it), an
    unknown name, a wrong shape, a failed simulation or linearization."""


DiagcError.__module__ = "diagc"


def fail(fmt, *args):
    raise DiagcError("diagc: " + (fmt % args if args else fmt))


def as_float(x, what):
    """float(x), or DiagcError "WHAT must be a number, got X"."""
    try:
        return float(x)
    except (TypeError, ValueError):
        fail("%s must be a number, got %r", what, x)


def as_floats(x, what):
    """x as a float64 array, or DiagcError "WHAT must be numbers, got X"."""
    import numpy as np
    try:
        if x is None or isinstance(x, (str, bytes)):
            raise TypeError  # NumPy would read None as nan, "1" as 1
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        fail("%s must be numbers, got %s", what, _short(x))


def _short(x):
    r = repr(x)
    return r if len(r) <= 40 else r[:37] + "..."
