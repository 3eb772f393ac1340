"""Subcommands of the ``seahaven`` command line, one module per idea: the engine at the
terminal (:mod:`.play`), the solver (:mod:`.solve`, and pools certified with their
optimal par, :mod:`.certify_optimal`), the server (:mod:`.serve`, with the
supervisor of its worker processes), a bot racer (:mod:`.bot`), replay verification
(:mod:`.verify`) and the operator's actions (:mod:`.admin`).

Each module here defines ``register(subparsers)``, which adds its subcommands and sets
``func`` on each parser to a callable taking the parsed arguments and returning the exit
status. :mod:`server.cli` finds the modules by walking this package.
"""
