"""diagc._errors: the one exception class of the package."""


class DiagcError(Exception):
    """A diagc failure; str() is diagc's one-line message ("diagc: ..."):
    a bad spec (FILE:LINE[:COL]: what is wrong and how to fix it), an
    unknown name, a wrong shape, a failed simulation or linearization."""


DiagcError.__module__ = "diagc"


def fail(fmt, *args):
    raise DiagcError("diagc: " + (fmt % args if args else fmt))
