"""A signing client of API v4 for Python, standard library only, to use through traderatio proxy.

Every request is signed as the exchange asks (src/model-exchange/auth.ts verifies it): HMAC-SHA512, keyed by
the secret, of five lines: the method, the path with /api/v4, the query as sent, the SHA-512 of the
body, and the Timestamp. Point it at the proxy (http://127.0.0.1:8081) and it is kept inside the
account's limits; an answer of the proxy's own carries a label starting with TRADERATIO_.

    from gate_client import GateClient
    client = GateClient("http://127.0.0.1:8081", key="...", secret="...")
    answer = client.request("POST", "/api/v4/futures/usdt/orders", body={"contract": "BTC_USDT", "size": 1, "price": "60000"})
    if answer.ok: print(answer.body["id"])
    elif answer.from_proxy: print("never reached the exchange:", answer.label)

One client keeps one connection alive (http.client): give each thread its own.
"""
from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Union

Body = Union[None, str, Mapping[str, Any], list]


@dataclass(frozen=True)
class Answer:
    """An answer: its status, its body parsed as JSON (None when empty or not JSON), its headers."""

    status: int
    body: Any
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def label(self) -> Optional[str]:
        """The error's label (the body {"label", "message"} of a failure), or None for a success."""
        if self.ok or not isinstance(self.body, dict):
            return None
        label = self.body.get("label")
        return label if isinstance(label, str) else None

    @property
    def from_proxy(self) -> bool:
        """True for an answer of traderatio proxy itself: the request never reached the exchange (but on a 504)."""
        return self.label is not None and self.label.startswith("TRADERATIO_")


def signature(secret: str, method: str, path: str, query: str, body: str, timestamp: str) -> str:
    """The SIGN header: lowercase hex of HMAC-SHA512(secret, method, path, query, SHA-512(body), timestamp)."""
    payload = "\n".join([method.upper(), path, query, hashlib.sha512(body.encode()).hexdigest(), timestamp])
    return hmac.new(secret.encode(), payload.encode(), hashlib.sha512).hexdigest()


class GateClient:
    """Signed requests to one base URL (the proxy's), over one kept-alive connection."""

    def __init__(self, base_url: str, key: str, secret: str, timeout: float = 90.0) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError("base_url must be an http or https URL, got %r" % base_url)
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port
        self._prefix = parsed.path.rstrip("/")
        self._key = key
        self._secret = secret
        self._timeout = timeout
        self._connection: Optional[http.client.HTTPConnection] = None

    def request(self, method: str, path: str, query: str = "", body: Body = None) -> Answer:
        """Sends one signed request; `path` starts with /api/v4, `query` is sent as given."""
        text = body if isinstance(body, str) else ("" if body is None else json.dumps(body))
        timestamp = str(int(time.time()))
        headers = {
            "KEY": self._key,
            "Timestamp": timestamp,
            "SIGN": signature(self._secret, method, path, query, text, timestamp),
            "Accept": "application/json",
            "Content-Type": "application/json",
        }
        target = self._prefix + path + ("?" + query if query else "")
        connection = self._connect()
        try:
            connection.request(method.upper(), target, body=text.encode() if text else None, headers=headers)
            response = connection.getresponse()
            raw = response.read()
        except BaseException:
            self.close()
            raise
        if response.will_close:
            self.close()
        try:
            parsed: Any = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return Answer(response.status, parsed, {k.lower(): v for k, v in response.getheaders()})

    def close(self) -> None:
        """Closes the connection; the next request opens another."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            self._connection = kind(self._host, self._port, timeout=self._timeout)
        return self._connection
