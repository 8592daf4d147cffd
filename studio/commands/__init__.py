"""Subcommands of the `studio` command line, one module each (see `studio.cli`)."""
