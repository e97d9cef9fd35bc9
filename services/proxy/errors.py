"""What the proxy answers in the service's own error shape (an upstream's own error
answer is passed through as it came, never wrapped in one of these)."""

from __future__ import annotations

from services.core.errors import DomainError


class UpstreamNotConfigured(DomainError):
    """No ``LLM_BASE_URL``: there is no model to forward to."""

    code = "llm_not_configured"
    status_code = 503


class UpstreamTimeout(DomainError):
    """The upstream did not connect or answer within ``PROXY_TIMEOUT``."""

    code = "upstream_timeout"
    status_code = 504


class UpstreamUnreachable(DomainError):
    """The upstream could not be reached, or broke the connection before answering."""

    code = "upstream_unreachable"
    status_code = 502
