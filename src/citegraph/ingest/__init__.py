"""Ingestion: loaders, chunking, factual density and the idempotent indexing pipeline."""
