"""The conformance drivers, one module per spec: each translates between a spec's vocabulary
and one implementation in `impl/` (the `Driver` protocol of conformance/harness.py).

They live apart from the tests so that the mutant gate (`harness.drivers()`) and the seed
plugins (conformance/seeds/) find them without importing a pytest test file.
"""
