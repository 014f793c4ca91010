"""Conformance: each implementation in `impl/` driven in lockstep with its model.

`harness` builds the generic machinery from a spec and a `Driver` (the thin
translation between the model's vocabulary and the implementation's API);
each `test_<spec>.py` supplies its driver.
"""
