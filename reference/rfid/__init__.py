"""The SASE RFID engine (spec/002, SIGMOD 2006) as a second reference: SSC with (P)AIS, σ, WD, NG, TF."""
from cepkit.reference.rfid.engine import SSCEngine, SSCProgram, compile_plan

__all__ = ["SSCEngine", "SSCProgram", "compile_plan"]
