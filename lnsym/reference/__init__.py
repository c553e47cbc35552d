"""Reference code: layer normalization in numpy, written from the proved formulas.

:mod:`lnsym.reference.layernorm_numpy` is printed verbatim in the report; the tests run it
against lnsym's exact worked examples, and against PyTorch where torch is installed.
"""
