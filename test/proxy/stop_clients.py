"""Clients in flight while traderatio proxy stops: each of THREADS threads places spot orders on one
pair (10 a second, so most wait in the proxy) until the proxy answers TRADERATIO_CLOSED or no longer
takes a connection. MODE urllib opens a connection per request (urllib.request); MODE keep-alive
sends every request of a thread on one kept-alive connection (examples/python/gate_client.py).
Prints one JSON line: how each request ended, by outcome."""
import json
import os
import sys
import threading
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
from gate_client import GateClient, signature  # noqa: E402

BASE = os.environ["GATE_URL"]
MODE = os.environ["MODE"]
THREADS = int(os.environ.get("THREADS", "16"))
KEY, SECRET = "main-key", "main-secret"
PATH = "/api/v4/spot/orders"
outcomes = {}
lock = threading.Lock()


def count(outcome):
    with lock:
        outcomes[outcome] = outcomes.get(outcome, 0) + 1


def urllib_call(n):
    import time

    body = json.dumps({"currency_pair": "BTC_USDT", "side": "buy", "amount": "1", "price": str(100 + n)})
    timestamp = str(int(time.time()))
    headers = {"KEY": KEY, "Timestamp": timestamp, "SIGN": signature(SECRET, "POST", PATH, "", body, timestamp),
               "Content-Type": "application/json"}
    request = urllib.request.Request(BASE + PATH, data=body.encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=90) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"null")


def engine(n):
    client = GateClient(BASE, KEY, SECRET) if MODE == "keep-alive" else None
    while True:
        try:
            if client is not None:
                a = client.request("POST", PATH, body={"currency_pair": "BTC_USDT", "side": "buy", "amount": "1", "price": str(100 + n)})
                status, body = a.status, a.body
            else:
                status, body = urllib_call(n)
        except (ConnectionRefusedError, urllib.error.URLError) as e:
            reason = getattr(e, "reason", e)
            if isinstance(e, ConnectionRefusedError) or isinstance(reason, ConnectionRefusedError):
                count("connection refused (never sent)")
                return
            count("error: %s" % type(reason).__name__)
            return
        except Exception as e:  # a reset, a disconnect: what must not happen
            count("error: %s" % type(e).__name__)
            return
        label = body.get("label") if isinstance(body, dict) else None
        count("%d %s" % (status, label) if label else str(status))
        if label == "TRADERATIO_CLOSED":
            return


threads = [threading.Thread(target=engine, args=(n,)) for n in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(outcomes, sort_keys=True))
