"""Text analysis shared by ingestion, extraction and contradiction detection: sentences, BM25 tokens,
dates, and the claim model (atomic claims with their verifiability cues)."""
