"""The subcommands of the ``lnsym`` command line, one module each.

A command module has ``add_parser(sub)``, which adds the subcommand's parser to the
subparsers of :func:`lnsym.cli.main` and sets ``run`` to its handler; the handler takes the
parsed arguments and returns the exit code. :data:`lnsym.cli.COMMANDS` lists the modules
in the order ``lnsym --help`` shows them, so a new subcommand is one module here and one
entry there.

- :mod:`~lnsym.commands.verify` — check claims and derivations.
- :mod:`~lnsym.commands.example` — an exact worked example at a point.
- :mod:`~lnsym.commands.report` — the checked catalog as Markdown, LaTeX and PDF.
- :mod:`~lnsym.commands.exercises` — an exercise sheet and its answer key.
- :mod:`~lnsym.commands.options` — what the commands share: option types, the path and
  checking options, the checker's options and the number of processes.
- :mod:`~lnsym.commands.output` — output paths checked before any work, and rendered files
  written with their notices.

Handlers import what they need when they run, so that building the parser (and
``lnsym --help``) loads neither SymPy nor the engines.
"""
