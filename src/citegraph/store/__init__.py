"""The corpus folder and its stores: the SQLite ledger (source of truth), the Chroma collection
(dense vectors), the derived in-memory index (BM25 + passage table) and the manifest."""
