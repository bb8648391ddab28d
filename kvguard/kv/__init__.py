"""What a layout does to the KV cache, once the release accepts it.

:mod:`~kvguard.kv.economics` (``audit``): the KV heads that govern the cache, the duplication
factor and what ``-dcp`` leaves of it, bytes per token; :mod:`~kvguard.kv.capacity`: vLLM's
``GPU KV cache size`` / ``Maximum concurrency``; :mod:`~kvguard.kv.plan`: every layout of N GPUs
the release accepts, ranked by KV capacity; :mod:`~kvguard.kv.suggestions`: the nearest launches
the release accepts for one it refuses.  Each asks :mod:`kvguard.rules` whether a layout starts.
"""
