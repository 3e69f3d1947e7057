#!/usr/bin/env python3
"""One vote at a time: N POSTs over one keep-alive connection, each a new voter, 20 ms apart; prints the answer
latency percentiles. What an app that waits for each click's answer sees.

    python3 bench/serial-posts.py 8080 300        # against ./tally up, after a warm-up (e.g. 30 s of wrk -c50)
"""
import http.client
import json
import sys
import time
import uuid

port, n = int(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection("127.0.0.1", port)
latencies = []
for i in range(n):
    body = json.dumps({"item_type": "post", "item_id": "s%d" % (i % 50), "vote_value": 1, "mode": "set"})
    started = time.perf_counter()
    connection.request("POST", "/v1/votes", body,
                       {"Content-Type": "application/json", "X-Tally-User": "serial-" + uuid.uuid4().hex})
    connection.getresponse().read()
    latencies.append((time.perf_counter() - started) * 1000)
    time.sleep(0.02)
latencies.sort()
print("p50=%.1fms p90=%.1fms p99=%.1fms max=%.1fms" % (latencies[len(latencies) // 2], latencies[int(n * .9)],
                                                        latencies[int(n * .99)], latencies[-1]))
