"""The launch as vLLM is given it, before any check runs.

Open these in order: :mod:`~kvguard.launch.argv` reads a ``vllm serve`` command line as the
release's own parser does, :mod:`~kvguard.launch.layout` holds the parallel fields it yields
and the host they run on, :mod:`~kvguard.launch.resolve` finds the model's config.json
(:mod:`~kvguard.launch.load` reads it, bounded), and :mod:`~kvguard.launch.pins` says which
release a deployment pins.  Next: :mod:`kvguard.facts` derives the model facts from the config.
"""
