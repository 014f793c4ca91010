"""The command line, `python -m models`: one module per subcommand family.

`main` parses and dispatches; `registry` finds the spec modules in `models/`;
`results` is the one JSON shape of a verdict; `kit` checks output paths and
turns a user's mistake into one line and exit 2.
"""
