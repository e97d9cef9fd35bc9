"""A minimal client for any OpenAI-compatible ``/chat/completions`` endpoint.

Configured by ``LLM_BASE_URL`` (ending in ``/v1`` as OpenAI SDKs expect, e.g.
``https://api.minimaxi.com/v1``), ``LLM_MODEL``, ``LLM_API_KEY`` and ``LLM_TIMEOUT``; off
while no base URL is set. Every failure (connection, timeout, HTTP status, a body without
``choices[0].message.content``) becomes :class:`LlmUnavailable`, so callers fall back to
their rule-based answer instead of failing the request.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from services.core.metrics import provider_call
from services.core.settings import Settings

# Reasoning models (MiniMax-M2 among them) put their thinking before the answer.
_THINKING = re.compile(r"<think>.*?</think>", re.S)


class LlmUnavailable(Exception):
    """The LLM could not give a usable answer this time."""


class ChatCompletionsClient:
    """POST one user prompt, return the assistant's text."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout
        self._transport = transport

    @classmethod
    def from_settings(cls, settings: Settings) -> ChatCompletionsClient | None:
        """The configured client, or None when no LLM is configured."""
        if not settings.llm_base_url:
            return None
        return cls(
            settings.llm_base_url,
            settings.llm_model,
            api_key=settings.llm_api_key,
            timeout=settings.llm_timeout,
        )

    async def complete(self, prompt: str, *, max_tokens: int, temperature: float = 0.3) -> str:
        """The answer text, thinking removed. Raises :class:`LlmUnavailable`."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        with provider_call("llm"):
            return await self._ask(body)

    async def _ask(self, body: dict[str, Any]) -> str:
        try:
            async with httpx.AsyncClient(timeout=self._timeout, transport=self._transport) as http:
                response = await http.post(self.url, json=body, headers=self._headers)
                response.raise_for_status()
                payload = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise LlmUnavailable(f"{type(exc).__name__}: {exc}") from exc
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise LlmUnavailable("no choices[0].message.content in the answer") from exc
        if not isinstance(content, str):
            raise LlmUnavailable("choices[0].message.content is not text")
        return _THINKING.sub("", content).strip()
