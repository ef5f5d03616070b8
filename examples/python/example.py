"""The signing client of gate_client.py through traderatio proxy: places futures orders, cancels
the open ones, reads the fills, and tells an answer of the proxy's own from the exchange's.

Run: GATE_URL=http://127.0.0.1:8081 GATE_KEY=... GATE_SECRET=... python3 examples/python/example.py
"""
import os

from gate_client import GateClient

BASE = os.environ.get("GATE_URL", "http://127.0.0.1:8081")  # the proxy, not the exchange
client = GateClient(BASE, os.environ.get("GATE_KEY", "main-key"), os.environ.get("GATE_SECRET", "main-secret"))

placed = [
    client.request("POST", "/api/v4/futures/usdt/orders", body={"contract": "BTC_USDT", "size": 1, "price": "60000", "tif": "gtc"})
    for _ in range(4)
]
assert all(a.ok for a in placed), [(a.status, a.body) for a in placed]
open_ids = [a.body["id"] for a in placed if a.body["status"] == "open"]
for order_id in open_ids:
    cancelled = client.request("DELETE", "/api/v4/futures/usdt/orders/%s" % order_id)
    assert cancelled.ok and cancelled.body["status"] == "finished", cancelled
trades = client.request("GET", "/api/v4/futures/usdt/my_trades", query="contract=BTC_USDT")
assert trades.ok, trades

# A key the proxy's accounts file does not name: answered by the proxy, never sent.
stranger = GateClient(BASE, "not-a-key", "x").request("GET", "/api/v4/futures/usdt/accounts")
assert stranger.status == 401 and stranger.from_proxy and stranger.label == "TRADERATIO_UNKNOWN_KEY", stranger
# The exchange's own refusal is relayed as it is: an order of a contract it does not list.
refused = client.request("POST", "/api/v4/futures/usdt/orders", body={"contract": "NOPE_USDT", "size": 1, "price": "1"})
assert not refused.ok and not refused.from_proxy, refused
client.close()
print("4 placed, %d cancelled, %d filled; %s from the proxy, %s from the exchange" % (len(open_ids), len(trades.body), stranger.label, refused.label))
