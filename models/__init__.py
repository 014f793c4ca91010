"""The models: one declarative spec per seed, and the kernel that checks them.

`python -m models verify` proves each spec's properties; `models.kernel` is
the machinery; each other module here defines `SPECS`.
"""
