"""The built-in extractors: the deterministic phrase-rules extractor and the LLM extractors.

They are plugins on the extraction contract (:mod:`lorebook.extract.base`), registered by
:mod:`lorebook.builtin.extractors` through the same ``register_extractors`` hook a third
party uses; the pipeline (:mod:`lorebook.extract.run`) never imports them.
"""
