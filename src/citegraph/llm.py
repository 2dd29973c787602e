"""The LLM engine's switch and its one code path: `langchain-openai`'s ChatOpenAI against any
OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp's server), structured output through
pydantic schemas with `method="function_calling"` (llama.cpp's server refuses OpenAI's json_schema
response format; function calling works there and everywhere else).

`structured_call` never raises: a timeout, an HTTP error or output that does not parse returns
(None, reason), and the node falls back to the extractive engine and records the reason.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, SecretStr

from citegraph.context import Context

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)


@lru_cache(maxsize=8)
def _chat_model(
    base_url: str | None, model: str, api_key: str | None, timeout: float, retries: int, temperature: float
) -> Any:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=model,
        base_url=base_url,
        api_key=SecretStr(api_key or "not-needed"),
        timeout=timeout,
        max_retries=retries,
        temperature=temperature,
    )


def chat_model(ctx: Context) -> Any | None:
    """The configured chat model, or None when the extractive engine is in use."""
    if not ctx.has_llm:
        return None
    return _chat_model(
        ctx.llm_base_url,
        str(ctx.llm_model),
        ctx.llm_api_key,
        ctx.llm_timeout_s,
        ctx.llm_max_retries,
        ctx.llm_temperature,
    )


def engine_name(ctx: Context) -> str:
    return "llm" if ctx.has_llm else "extractive"


async def structured_call(ctx: Context, schema: type[T], prompt: str) -> tuple[T | None, str | None]:
    """Ask the model for an instance of `schema`. Returns (result, None) or (None, why it failed)."""
    model = chat_model(ctx)
    if model is None:
        return None, None
    try:
        runnable = model.with_structured_output(schema, method="function_calling")
        result = await runnable.ainvoke(prompt)
    except Exception as exc:  # network, HTTP, timeout, parse errors: all mean "use the fallback"
        reason = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
        log.warning("model call failed (%s); falling back to the extractive engine", reason)
        return None, reason
    if result is None:
        return None, "the model returned no parsable output"
    if not isinstance(result, schema):
        try:
            result = schema.model_validate(result)
        except Exception as exc:
            return None, f"output did not match {schema.__name__}: {exc}"
    return result, None


async def text_call(ctx: Context, prompt: str) -> tuple[str | None, str | None]:
    model = chat_model(ctx)
    if model is None:
        return None, None
    try:
        msg = await model.ainvoke(prompt)
    except Exception as exc:
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    text = msg.content if isinstance(msg.content, str) else str(msg.content)
    return (text.strip() or None), (None if text.strip() else "empty reply")
