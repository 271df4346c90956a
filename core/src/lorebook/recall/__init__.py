"""Recall: tokenising, BM25 ranking and the persisted note index hooks read."""
