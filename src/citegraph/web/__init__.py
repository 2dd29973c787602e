"""The web half of recent mode: search a provider (search.py), read the pages it finds as a careful
crawler does (fetch.py), turn each into a dated document record (pages.py), keep both on disk
(cache.py), and store the pages in a web corpus ranked by the same retriever as the user's files
(branch.py). Nothing here runs unless the operator names a provider (CITEGRAPH_WEB_SEARCH)."""
