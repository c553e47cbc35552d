"""The numeric engine: claims sampled with numpy (see :mod:`.engine`).

- :mod:`~lnsym.engines.numeric.engine` — sampling, comparison and evidence.
- :mod:`~lnsym.engines.numeric.batch` — every sample of one d evaluated in one array pass.
"""
