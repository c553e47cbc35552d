"""Rendering of claims, derivations and results: printers, templates, figures.

The ``lnsym report`` pipeline, one concept per module:

- :mod:`~lnsym.printing.printer` — the IR as text and as LaTeX (SymPy printer subclasses);
  all mathematics in a report comes from here.
- :mod:`~lnsym.report.escape` — plain text made safe for LaTeX and Markdown.
- :mod:`~lnsym.report.model` — checked sections turned into format-neutral report data.
- :mod:`~lnsym.report.evidence_view` — the engines' evidence and counterexamples as the
  report shows them, keeping only what is identical on every machine.
- :mod:`~lnsym.report.figures` — the matplotlib figures, reproducible byte for byte.
- :mod:`~lnsym.report.narrative` — the built-in report's chapters before the catalog (worked
  example, geometry, staged backward pass, stability, code), written with
  :mod:`~lnsym.report.narrative_blocks` (paragraph markup, claim links) and
  :mod:`~lnsym.report.stability` (the variance computed naively and in two passes).
- :mod:`~lnsym.report.appendix` — the built-in report's evidence appendix, shared lines once.
- :mod:`~lnsym.report.tables` — verdict grids from a derivation module's ``TABLES``.
- :mod:`~lnsym.report.review` — the source review's content (data): the source documents
  restated statement by statement, with claim ids, example inputs and quoted numbers.
- :mod:`~lnsym.report.quoted` — numbers quoted from a source, read exactly.
- :mod:`~lnsym.report.review_model` — the review checked against a run: verdicts, findings,
  reconstructed displays, corrections.
- :mod:`~lnsym.report.review_examples` — the review's worked examples recomputed exactly and
  compared with the quoted numbers.
- :mod:`~lnsym.report.render` — the Jinja2 templates (``templates/*.j2``) that lay it out.
- :mod:`~lnsym.report.pdf` — pdflatex, sandboxed and reproducible.
- :mod:`~lnsym.report.build` — render everything in memory, then write atomically or
  compare with what is on disk (``--check``).
"""
