"""Packs: a knowledge base's notes as a publishable OKF bundle, and landing one.

:mod:`.bundle` reads a pack (lorebook's, kenkeep's, or any OKF bundle), :mod:`.export`
writes one, :mod:`.land` imports one as a single folder after validating everything.
"""
