"""The answer's logic, beneath the nodes and free of LangGraph: how a question is routed and split into
sub-queries, which facts contradict and how that is settled, how the answer is composed and checked.
Each node in `citegraph.nodes` reads its state, calls one function here and returns a partial update."""
