"""Subcommands of the ``seahaven`` command line, one module per idea.

Each module here defines ``register(subparsers)``, which adds its subcommands and sets
``func`` on each parser to a callable taking the parsed arguments and returning the exit
status. :mod:`server.cli` finds the modules by walking this package.
"""
