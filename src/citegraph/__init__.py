"""citegraph: evidence-grounded question answering with cited answers, or an honest abstention.

Importing the package sets process defaults that these machines need (no network, two cores):
libraries stay offline, and numpy's BLAS runs single-threaded so it does not fight torch or
onnxruntime for the cores (a hybrid query went from ~30 ms to ~15 ms with that alone, DESIGN.md).
They are defaults only: a value the user exported wins.
"""

import os as _os

for _key, _value in {
    "OPENBLAS_NUM_THREADS": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "ANONYMIZED_TELEMETRY": "False",
    # onnxruntime (1.32) sends usage events from native code (strace -k: getaddrinfo of
    # mobile.events.data.microsoft.com from onnxruntime_pybind11_state.so, seconds into a long-lived
    # process such as `langgraph dev`); this is its switch.
    "ORT_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    # Checkpoints deserialize only the types the graph's state declares (ours included).
    "LANGGRAPH_STRICT_MSGPACK": "true",
}.items():
    _os.environ.setdefault(_key, _value)

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # `from citegraph import ask` without importing the graph (and its models) on `import citegraph`.
    if name in ("ask", "aask"):
        from citegraph import api

        return getattr(api, name)
    raise AttributeError(name)
