"""The features' commands, each added by a built-in plugin on the ``register_commands`` hook.

One module per feature (``bootstrap``, ``harvest``, ``import``, ``pack``, ``stats``,
``eval``, ``mcp``), registered like the other built-ins (:data:`lorebook.plugins.DEFAULT_PLUGINS`)
and called like a third party's plugin. They belong to the command line's layer: each
imports its ``lorebook.cli`` module, but only when the application is built, so loading
them costs the hook path nothing.
"""
