"""Every call to the Docker engine, bounded in time.

The client is made with a timeout on each socket read, so a call to an engine that accepts and never
answers fails after that many seconds. The first such failure marks the engine as hung for the rest of the
session: every later call fails at once with the same message, instead of each waiting out its own timeout
(a hung engine used to turn one 20 s block into minutes, then say the container was gone).
"""

from __future__ import annotations

import os
import socket
from typing import Any, Callable

ENGINE_TIMEOUT_ENV = "DOCGEN_CONSOLE_ENGINE_TIMEOUT"
DEFAULT_ENGINE_TIMEOUT = 20.0


def engine_timeout() -> float:
    """Seconds one engine call may take (DOCGEN_CONSOLE_ENGINE_TIMEOUT, else 20)."""
    try:
        value = float(os.environ.get(ENGINE_TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_ENGINE_TIMEOUT
    return value if value > 0 else DEFAULT_ENGINE_TIMEOUT


class EngineHung(Exception):
    """The engine did not answer a call within the client's timeout."""


def _is_timeout(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (TimeoutError, socket.timeout)) or "Timeout" in type(current).__name__ \
                or "timed out" in str(current):
            return True
        current = current.__cause__ or current.__context__
    return False


class Engine:
    """A Docker client plus the session's verdict on whether its engine still answers."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.api = client.api
        timeout = getattr(client.api, "timeout", None)
        self.timeout = float(timeout) if isinstance(timeout, (int, float)) else None
        self.hung: str | None = None     # the message, once a call timed out

    def call(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """fn(*args, **kwargs); EngineHung when it (or an earlier call) timed out. `what` names the call."""
        if self.hung is not None:
            raise EngineHung(self.hung)
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if not _is_timeout(exc):
                raise
            bound = f"{self.timeout:g} s" if self.timeout is not None else "its timeout"
            self.hung = (f"the Docker engine did not answer within {bound} (to {what}); no further engine "
                         f"call is made in this session (set {ENGINE_TIMEOUT_ENV} to wait longer)")
            raise EngineHung(self.hung) from None


def as_engine(engine_or_client: Any) -> Engine:
    return engine_or_client if isinstance(engine_or_client, Engine) else Engine(engine_or_client)


def hung_while_connecting(exc: BaseException, timeout: float) -> str | None:
    """The hung-engine message for an error the client raised on creation (None: not a timeout)."""
    if not _is_timeout(exc):
        return None
    return (f"the Docker engine did not answer within {timeout:g} s (to say its API version); no further "
            f"engine call is made in this session (set {ENGINE_TIMEOUT_ENV} to wait longer)")
