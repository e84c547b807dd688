"""An independent reference solver for cross-checking the clingo engine
(docs/semantics/crosschecking.md).

GDL rules become SWI-Prolog clauses run in a child ``swipl`` process; it shares no reasoning
code with the ASP path (only the GDL parser and validator).
"""

from reasoner.reference.prolog import prolog_program
from reasoner.reference.solver import ReferenceSolver, ReferenceSuperset

__all__ = ["ReferenceSolver", "ReferenceSuperset", "prolog_program"]
