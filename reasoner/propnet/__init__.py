"""The propositional network backend: compiled from clingo's ground program, evaluated
one state at a time or in bit-parallel batches."""
