"""diagc: generated diagc models from Python (docs/python.md).

    import diagc
    m = diagc.build("examples/spring_mass.lua")   # generate, compile, load
    c = m.context()
    c.set_param("spring.stiffness", 4.0)
    logs = c.simulate(until=1.0)                  # {logger: structured array}

Built on ctypes over the model's C descriptor (runtime/include/diagc/
model.h) and the shared runtime (lib/libdiagc.so): no compiled extension,
and foreign calls release the GIL.  Every failure is a DiagcError whose
message is diagc's one line.
"""
from ._build import build
from ._errors import DiagcError
from ._model import Context, Model, load

__all__ = ["build", "load", "Model", "Context", "DiagcError"]
