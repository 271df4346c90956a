"""The built-in LLM curators: an OpenAI-compatible HTTP endpoint, or a wired harness run headless.

They are plugins on the curation contract (:mod:`lorebook.curate.base`), registered by
:mod:`lorebook.builtin.curators` through the same ``register_curators`` hook a third party
uses, as the built-in extractors are (:mod:`lorebook.extractors`). The deterministic
``rules`` curator stays in :mod:`lorebook.curate.rules`: curation's own steps and bootstrap's
preview judge proposals with it.
"""
