#!/usr/bin/env python3
"""tests/real/serve_client.py: an independent client beside lvd serve's figures.

    serve_client.py SERVE_JSON ARM N P G REQUESTS ROUNDS LOG_FILE [--timeout S]

SERVE_JSON is what `lvd serve --json` printed; ARM (from 1) picks one of its
arms, whose launch line (argv and env, never through a shell) this script
starts itself as llama-server with `--host 127.0.0.1 --port FREE -np 2N`, in
its own session (process group). When GET /health answers 200 it takes
ROUNDS turns on that one server, each two drives at once, N slots each:
`$LVD_BIN/lvd serve --url` of it at load N:P:G with REQUESTS requests, and
its own REQUESTS requests from N threads, started a fraction k / ROUNDS of
one request's time after lvd serve in turn k (closed loops lock in phase:
the side whose requests come a little later meets the server in the other's
prompt processing and waits; over evenly spread offsets neither side is
favoured),
each on an http.client connection of its own (the server closes one after
every stream), the same kind lvd serve sends: POST /completion with a prompt
of P token ids (1000 to 20999, different every request), "n_predict": G,
"stream": true, "ignore_eos": true, "cache_prompt": false, "temperature": 0.
Its time to first token runs from the send to the first `data:` line that
brings a token (an "error" event fails the request); its aggregate rate is
every generated token over the first send to the last end. Side by side on
the same server at the same time, the host's drift hits both alike (this
host's speed wanders several times over within seconds). The
server's group is then ended (SIGTERM, then SIGKILL). Its output goes to
LOG_FILE.

Prints one JSON object {"rounds": [{"lvd": {"ttft_ms_p50", "aggregate_tps"},
"client": {...}}], "ttft_ratio", "tps_ratio" (lvd / client, the geometric
mean over the rounds), "group_gone",
"error"} and exits 0 when every turn measured
something and the group is gone, else 1.
"""
import http.client
import json
import math
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(port):
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        c.request("GET", "/health")
        ok = c.getresponse().status == 200
        c.close()
        return ok
    except OSError:
        return False


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def stop(proc):
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        if not group_alive(proc.pid):
            break
        os.killpg(proc.pid, sig)
        end = time.monotonic() + wait
        while time.monotonic() < end and group_alive(proc.pid):
            proc.poll()
            time.sleep(0.05)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    return not group_alive(proc.pid)


def one_request(port, body, timeout):
    """(ttft_s, tokens, t_start, t_end) of one streamed completion."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.connect()
    conn.request("POST", "/completion", body=body, headers={"Content-Type": "application/json"})
    t0 = time.monotonic()
    resp = conn.getresponse()
    if resp.status != 200:
        raise RuntimeError("HTTP %d: %s" % (resp.status, resp.read()[:200]))
    first, tokens, last = None, 0, 0
    while True:
        line = resp.readline()
        if not line:
            break
        if not line.startswith(b"data:"):
            continue
        ev = json.loads(line[5:])
        if "error" in ev:
            conn.close()
            raise RuntimeError("llama-server refused it: %s" % ev["error"])
        n = ev.get("tokens_predicted", tokens)
        if n > tokens and first is None:
            first = time.monotonic() - t0
        tokens = max(tokens, n)
        if ev.get("stop"):
            break
    resp.read()
    conn.close()
    if first is None:
        raise RuntimeError("no token came")
    return first, tokens, t0, time.monotonic()


def client_turn(port, n, bodies, timeout):
    """This client's figures over bodies, n at a time."""
    out, lock = [], threading.Lock()

    def client(k):
        for i in range(k, len(bodies), n):
            try:
                r = one_request(port, bodies[i], timeout)
            except (OSError, RuntimeError, ValueError) as e:
                r = e
            with lock:
                out.append(r)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok = [r for r in out if isinstance(r, tuple)]
    if not ok:
        raise RuntimeError("no request was answered: %s" % [r for r in out if not isinstance(r, tuple)][:1])
    span = max(r[3] for r in ok) - min(r[2] for r in ok)
    return {"ttft_ms_p50": statistics.median(r[0] for r in ok) * 1e3,
            "aggregate_tps": sum(r[1] for r in ok) / span, "errors": len(out) - len(ok)}


def lvd_turn(port, n, p, g, requests, timeout):
    """lvd serve --url's figures on the same server (None when it failed)."""
    argv = [os.path.join(os.environ["LVD_BIN"], "lvd"), "serve", "--url", "http://127.0.0.1:%d" % port,
            "--load", "%d:%d:%d" % (n, p, g), "--requests", str(requests), "--rounds", "1", "--json"]
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    if r.returncode != 0:
        print("lvd serve --url: exit %d: %s" % (r.returncode, r.stderr.decode()[-300:]), file=sys.stderr)
        return None
    f = json.loads(r.stdout)["cells"][0]["figures"]
    return {"ttft_ms_p50": f["ttft_ms"]["p50"], "aggregate_tps": f["aggregate_tps"], "errors": f["errors"]}


def main():
    args = sys.argv[1:]
    timeout = 600.0
    if "--timeout" in args:
        k = args.index("--timeout")
        timeout = float(args[k + 1])
        del args[k:k + 2]
    if len(args) != 8:
        print(__doc__, file=sys.stderr)
        return 2
    serve_json, arm, n, p, g, requests, rounds, log_file = args
    arm, n, p, g, requests, rounds = int(arm), int(n), int(p), int(g), int(requests), int(rounds)
    a = json.load(open(serve_json))["arms"][arm - 1]
    env = dict(os.environ)
    for w in a["env"]:
        k, v = w.split("=", 1)
        env[k] = v
    port = free_port()
    argv = list(a["argv"]) + ["--host", "127.0.0.1", "--port", str(port), "-np", str(2 * n)]
    res = {"rounds": [], "ttft_ratio": None, "tps_ratio": None, "group_gone": None, "error": None}
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with open(log_file, "wb") as log:
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        t0 = time.monotonic()
        while not healthy(port):
            if proc.poll() is not None or time.monotonic() - t0 > timeout:
                raise RuntimeError("llama-server never answered /health 200")
            time.sleep(0.05)
        rng = random.Random(n * 1000003 + requests)
        warm = json.dumps({"prompt": [rng.randrange(1000, 21000) for _ in range(p)], "n_predict": g,
                           "stream": True, "ignore_eos": True, "cache_prompt": False, "temperature": 0})
        one_request(port, warm, timeout)
        t = time.monotonic()
        one_request(port, warm.replace('"n_predict"', '"n_predict" ', 1), timeout)
        period = time.monotonic() - t
        for _ in range(rounds):
            bodies = [json.dumps({"prompt": [rng.randrange(1000, 21000) for _ in range(p)], "n_predict": g,
                                  "stream": True, "ignore_eos": True, "cache_prompt": False, "temperature": 0})
                      for _ in range(requests)]
            ours, theirs = {}, {}
            lvd = threading.Thread(target=lambda: ours.update(lvd=lvd_turn(port, n, p, g, requests, timeout)))
            py = threading.Thread(target=lambda: theirs.update(c=client_turn(port, n, bodies, timeout)))
            lvd.start()
            time.sleep(period * len(res["rounds"]) / rounds)
            py.start()
            lvd.join()
            py.join()
            if "c" not in theirs:
                raise RuntimeError("the client measured nothing")
            theirs = theirs["c"]
            if not ours.get("lvd"):
                raise RuntimeError("lvd serve --url measured nothing")
            res["rounds"].append({"lvd": ours["lvd"], "client": theirs})
        pick = lambda key: math.exp(statistics.mean(math.log(r["lvd"][key] / r["client"][key]) for r in res["rounds"]))
        res["ttft_ratio"], res["tps_ratio"] = pick("ttft_ms_p50"), pick("aggregate_tps")
    except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
        res["error"] = str(e)
    finally:
        res["group_gone"] = stop(proc)
    print(json.dumps(res))
    return 0 if res["ttft_ratio"] is not None and res["group_gone"] else 1


if __name__ == "__main__":
    sys.exit(main())
