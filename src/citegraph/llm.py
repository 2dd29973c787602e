"""The LLM engine's switch and its one code path: `langchain-openai`'s ChatOpenAI against any
OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp's server), structured output through
pydantic schemas, by default with `method="function_calling"` (a forced tool call: llama.cpp's server
refuses OpenAI's json_schema response format; Ollama ignores a forced tool choice and takes
`llm_structured_output="json_schema"`).

`structured_call` never raises: a timeout, an HTTP error or output that does not parse returns
(None, reason), and the node falls back to the extractive engine and records the reason.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, SecretStr

from citegraph.context import Context

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)


# One client per event loop: ChatOpenAI's async HTTP client is bound to the loop it first ran on, and
# `ask()` runs each question in a new loop (asyncio.run).
_models: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Any]] = weakref.WeakKeyDictionary()


def chat_model(ctx: Context) -> Any | None:
    """The configured chat model, or None when the extractive engine is in use."""
    if not ctx.has_llm:
        return None
    from langchain_openai import ChatOpenAI

    dep = ctx.deployment  # the operator's endpoint and key only: a run's context cannot name another

    key = (
        dep.llm_base_url,
        dep.llm_model,
        dep.llm_api_key,
        dep.llm_timeout_s,
        dep.llm_max_retries,
        dep.llm_temperature,
    )
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    cache = _models.setdefault(loop, {}) if loop is not None else {}
    if key not in cache:
        cache[key] = ChatOpenAI(
            model=str(dep.llm_model),
            base_url=dep.llm_base_url,
            api_key=SecretStr(dep.llm_api_key or "not-needed"),
            timeout=dep.llm_timeout_s,
            max_retries=0,  # retries are _call's: a timeout is not retried, a rate limit is
            temperature=dep.llm_temperature,
            # Our own async HTTP client for this loop: langchain-openai's default one is shared by the
            # whole process and dies with the first loop ("Event loop is closed" on the next ask()).
            http_async_client=httpx.AsyncClient(timeout=dep.llm_timeout_s),
        )
    return cache[key]


def engine_name(ctx: Context) -> str:
    """The engine of the nodes that read and write text; with llm_scope "judge" the model only judges."""
    return "llm" if ctx.has_llm and ctx.llm_scope == "all" else "extractive"


def model_picks(ctx: Context) -> bool:
    """Whether the model writes by naming the facts that state the answer (llm_write "quotes"): that
    choice is its judgement that they answer, so no call of its own asks it first (issue 16: a question
    answered takes three calls one after another, route, read and write, not four)."""
    return engine_name(ctx) == "llm" and ctx.llm_write == "quotes"


def model_judges(ctx: Context) -> bool:
    """Whether the judge asks the model if the passages state the answer: when it only judges
    (llm_scope "judge"), and before it writes sentences of its own (llm_write "prose")."""
    return ctx.has_llm and not model_picks(ctx)


# Endpoints that timed out or refused a connection lately (circuit breaker): until this long has
# passed, calls to them are skipped at once. A hanging server cost 120 s × 2 attempts at every stage
# of a question (1,294 s for one); now it costs one timeout per run, and a server process does not
# wait on it again for each question in the window.
_tripped: dict[tuple[str | None, str | None], float] = {}


# At most Deployment.concurrency requests in flight per endpoint, within one event loop. A request is
# sent when it passes its gate, so its timeout runs from then, not while it waits behind the others.
_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)


def _gate(ctx: Context) -> asyncio.Semaphore:
    dep = ctx.deployment
    gates = _gates.setdefault(asyncio.get_running_loop(), {})
    key = (dep.llm_base_url, dep.llm_model, dep.concurrency)
    if key not in gates:
        gates[key] = asyncio.Semaphore(dep.concurrency)
    return gates[key]


class _Skipped(Exception):
    """The endpoint stopped answering while this call waited at its gate."""


def _skip_reason(ctx: Context) -> str | None:
    """Why a call to the endpoint is not made now (its breaker tripped lately), or None."""
    dep = ctx.deployment
    since = _tripped.get((dep.llm_base_url, dep.llm_model))
    if since is not None and time.monotonic() - since < dep.llm_breaker_s:
        ago = time.monotonic() - since
        return (
            f"skipped: the model endpoint stopped answering {ago:.0f} s ago (retried after {dep.llm_breaker_s:.0f} s)"
        )
    return None


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


def _dead(exc: BaseException) -> bool:
    """A timeout or a connection that failed: the endpoint is not answering (not a bad request)."""
    import openai

    return isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, TimeoutError, httpx.TransportError))


def _retryable(exc: BaseException) -> bool:
    import openai

    return isinstance(exc, openai.RateLimitError) or (isinstance(exc, openai.APIStatusError) and exc.status_code >= 500)


def deadline_from_now(ctx: Context) -> float:
    """The epoch second at which a run starting now stops calling the model."""
    return time.time() + ctx.deployment.run_deadline_s


async def _call(
    ctx: Context, invoke: Callable[[], Awaitable[Any]], deadline: float | None = None
) -> tuple[Any, str | None]:
    """Run one model call through the breaker, its endpoint's gate and within the run's deadline:
    (result, None) or (None, why it failed). Timeouts and dead connections are not retried (they trip
    the breaker); rate limits and server errors are, up to llm_max_retries times. Past the deadline no
    call is made, and a call still running or waiting at the gate when it comes is cut (the endpoint
    is slow, not dead: the breaker is left alone)."""
    dep = ctx.deployment
    if deadline is not None and time.time() >= deadline:
        return None, f"skipped: the run's deadline ({dep.run_deadline_s:.0f} s) has passed"
    key = (dep.llm_base_url, dep.llm_model)
    skipped = _skip_reason(ctx)
    if skipped:
        return None, skipped

    async def gated() -> Any:
        async with _gate(ctx):
            skipped = _skip_reason(ctx)  # a call ahead of this one found the endpoint dead
            if skipped:
                raise _Skipped(skipped)
            return await invoke()

    for attempt in range(dep.llm_max_retries + 1):
        try:
            if deadline is None:
                result = await gated()
            else:
                try:
                    result = await asyncio.wait_for(gated(), max(0.0, deadline - time.time()))
                except TimeoutError:
                    if time.time() < deadline:
                        raise
                    return None, f"cut: the run's deadline ({dep.run_deadline_s:.0f} s) came during a model call"
        except _Skipped as exc:
            return None, str(exc)
        except Exception as exc:  # network, HTTP, timeout, parse errors: all mean "use the fallback"
            if _dead(exc):
                _tripped[key] = time.monotonic()
            elif _retryable(exc) and attempt < dep.llm_max_retries:
                await asyncio.sleep(0.5 * 2**attempt)
                continue
            log.warning("model call failed (%s); falling back to the extractive engine", _reason(exc))
            return None, _reason(exc)
        _tripped.pop(key, None)
        return result, None
    return None, "no attempt left"  # not reached: the loop returns


async def structured_call(
    ctx: Context, schema: type[T], prompt: str, deadline: float | None = None
) -> tuple[T | None, str | None]:
    """Ask the model for an instance of `schema`. Returns (result, None) or (None, why it failed)."""
    model = chat_model(ctx)
    if model is None:
        return None, None
    method = ctx.deployment.llm_structured_output
    runnable = model.with_structured_output(schema, method=method)
    result, reason = await _call(ctx, lambda: runnable.ainvoke(prompt), deadline)
    if reason is not None:
        return None, reason
    if result is None:
        return None, "the model returned no parsable output"
    if not isinstance(result, schema):
        try:
            result = schema.model_validate(result)
        except Exception as exc:
            return None, f"output did not match {schema.__name__}: {exc}"
    return result, None


async def text_call(ctx: Context, prompt: str, deadline: float | None = None) -> tuple[str | None, str | None]:
    model = chat_model(ctx)
    if model is None:
        return None, None
    msg, reason = await _call(ctx, lambda: model.ainvoke(prompt), deadline)
    if reason is not None:
        return None, reason
    text = msg.content if isinstance(msg.content, str) else str(msg.content)
    return (text.strip() or None), (None if text.strip() else "empty reply")


def _yes_no(token: str) -> str | None:
    word = token.strip().lower()
    return word if word in ("yes", "no") else None


async def yes_probability(ctx: Context, prompt: str, deadline: float | None = None) -> tuple[float | None, str | None]:
    """The model's probability of answering "yes" to a yes/no prompt, read from the log-probabilities
    of its first token (a graded score, so a threshold can trade one error for the other). Endpoints
    that return no log-probabilities give 1.0 or 0.0 from the reply itself. Never raises."""
    model = chat_model(ctx)
    if model is None:
        return None, None
    bound = model.bind(logprobs=True, top_logprobs=20, max_tokens=1)
    msg, reason = await _call(ctx, lambda: bound.ainvoke(prompt), deadline)
    if reason is not None:
        return None, reason
    content = (msg.response_metadata.get("logprobs") or {}).get("content") or []
    mass = {"yes": 0.0, "no": 0.0}
    for alt in content[0].get("top_logprobs", []) if content else []:
        word = _yes_no(alt.get("token", ""))
        if word:
            mass[word] += math.exp(alt["logprob"])
    if mass["yes"] + mass["no"] > 0:
        return mass["yes"] / (mass["yes"] + mass["no"]), None
    word = _yes_no(str(msg.content))
    if word:
        return (1.0 if word == "yes" else 0.0), None
    return None, f"the model answered neither yes nor no: {str(msg.content)[:40]!r}"
