"""A trading engine that is not Node: Python's standard library only (urllib, hmac, hashlib).

THREADS threads place futures orders on one contract as fast as answers come back for SECONDS
seconds, each cancelling every third order it placed, every request signed as API v4 asks
(HMAC-SHA512 of method, path, query, SHA-512 of the body and the Timestamp). It knows nothing of
rate limits: pointed at `traderatio proxy` it is kept inside them, pointed at the exchange it is not.

Run: GATE_URL=http://127.0.0.1:8081 GATE_KEY=... GATE_SECRET=... python3 examples/proxy/engine.py
It prints one JSON line: answers by status, placements accepted, cancels sent, seconds run.
"""
import hashlib
import hmac
import json
import os
import threading
import time
import urllib.error
import urllib.request

BASE = os.environ.get("GATE_URL", "http://127.0.0.1:8081")
KEY = os.environ.get("GATE_KEY", "main-key")
SECRET = os.environ.get("GATE_SECRET", "main-secret")
THREADS = int(os.environ.get("THREADS", "32"))
SECONDS = float(os.environ.get("SECONDS", "10"))
CONTRACT = os.environ.get("CONTRACT", "BTC_USDT")


def call(method, path, query="", body=""):
    """One signed request; returns (status, parsed JSON answer or None)."""
    timestamp = str(int(time.time()))
    payload = "\n".join([method, path, query, hashlib.sha512(body.encode()).hexdigest(), timestamp])
    sign = hmac.new(SECRET.encode(), payload.encode(), hashlib.sha512).hexdigest()
    url = BASE + path + ("?" + query if query else "")
    headers = {"KEY": KEY, "Timestamp": timestamp, "SIGN": sign, "Accept": "application/json", "Content-Type": "application/json"}
    request = urllib.request.Request(url, data=body.encode() if body else None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"null")


statuses = {}
placed = [0]
cancels = [0]
lock = threading.Lock()
end = time.monotonic() + SECONDS


def engine(n):
    order = json.dumps({"contract": CONTRACT, "size": 1, "price": str(60000 - n), "tif": "gtc"})
    mine = 0
    while time.monotonic() < end:
        status, answer = call("POST", "/api/v4/futures/usdt/orders", body=order)
        with lock:
            statuses[status] = statuses.get(status, 0) + 1
            placed[0] += status in (200, 201)
        mine += 1
        if status in (200, 201) and mine % 3 == 0 and time.monotonic() < end:
            status, _ = call("DELETE", "/api/v4/futures/usdt/orders/%s" % answer["id"])
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                cancels[0] += 1


started = time.monotonic()
threads = [threading.Thread(target=engine, args=(n,)) for n in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps({"statuses": statuses, "placed": placed[0], "cancels": cancels[0], "seconds": round(time.monotonic() - started, 3)}))
