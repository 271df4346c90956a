"""Injection: what each hook event puts in the model's context (or asks, or denies)."""
