"""Retrieval in plain Python (no LangGraph): sparse (BM25), dense (Chroma), fusion, reranking, and
the hybrid retriever that composes them."""
