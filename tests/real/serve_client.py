#!/usr/bin/env python3
"""tests/real/serve_client.py: an independent client timing lvd serve's own requests.

    serve_client.py SERVE_JSON ARM N P G REQUESTS LOG_FILE [--timeout S]

SERVE_JSON is what `lvd serve --json` printed; ARM (from 1) picks one of its
arms, whose launch line (argv and env, never through a shell) this script
starts itself as llama-server with `--host 127.0.0.1 --port FREE -np N`, in
its own session (process group), killed when this script dies, on one
thread less than the host has (`-t`: a core left to both clients). When GET
/health answers 200 it listens on another loopback port and runs
`$LVD_BIN/lvd serve --url` of that port at load N:P:G with REQUESTS
requests. Every request lvd serve sends there is sent on to the server by
this script's own client, python's http.client (a connection per request,
as the server closes one after every stream), and its answer passed back
line by line as it comes. This client times each request itself, from the
moment lvd serve's request reached this host (the kernel's receive timestamp
of its first bytes; where the kernel gives none, when its connection was
accepted: lvd serve sends as soon as the connection is up) to the moment it
has passed on the first `data:` line from the server that brings a token
(tokens_predicted grows, or, where the events carry none as ik_llama.cpp's
do, one with content; an "error" event fails the request), and to its last
event; its aggregate rate is every generated token over its first request's
start to its last end, failed requests included (as lvd serve counts its
wall). So both time the very same requests at the same moments, and this
host's drift (its speed wanders several times over within seconds) hits both
alike; a late thread of this script (its accept, its read, passing a token
on: several ms on a loaded host) delays lvd serve's figure and this client's
alike, and what lvd serve adds on its side is only its own reading of the
request's first bytes and of the token passed on to it. It also checks
what lvd serve asked for: a prompt of P token ids, "n_predict" G, "stream"
true, and that G tokens came back. The
server's group is then ended (SIGTERM, then SIGKILL). Its output goes to
LOG_FILE.

Prints one JSON object {"lvd": {"ttft_ms_p50", "aggregate_tps", "requests",
"errors", "first_error"}, "client": {...}, "ttft_ratio", "tps_ratio" (lvd / client),
"bodies": the requests not as asked (a list of reasons), "group_gone",
"error"} and exits 0 when both measured and the group is gone, else 1.
"""
import ctypes
import http.client
import http.server
import json
import os
import signal
import socket
import struct
import statistics
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from serve import free_port, stop  # noqa: E402 (tests/real/serve.py: the select step's server)


def healthy(port):
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        c.request("GET", "/health")
        ok = c.getresponse().status == 200
        c.close()
        return ok
    except OSError:
        return False


def die_with_us():
    """In the server's child before exec: SIGKILL when this script dies (PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)


class Timing:
    """What the client timed, request by request, and what it saw asked."""

    def __init__(self, p, g):
        self.p, self.g = p, g
        self.lock = threading.Lock()
        self.done = []      # (ttft_s, tokens, t_start, t_end) of each ok request
        self.failed = []    # (reason, t_start, t_end) of each failed request
        self.bodies = []    # requests not as asked

    def check_body(self, raw):
        try:
            b = json.loads(raw)
            why = []
            if len(b.get("prompt", [])) != self.p or not all(isinstance(t, int) for t in b["prompt"]):
                why.append("a prompt of %d token ids" % self.p)
            if b.get("n_predict") != self.g:
                why.append('"n_predict" %d' % self.g)
            if b.get("stream") is not True:
                why.append('"stream" true')
        except (ValueError, AttributeError) as e:
            why = ["JSON: %s" % e]
        if why:
            with self.lock:
                self.bodies.append("not " + ", ".join(why))


SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux's value where Python lacks the name


def arrived(sock):
    """When the first bytes waiting on sock reached this host, on the monotonic
    clock: the kernel's receive timestamp (SO_TIMESTAMPNS, set on the listening
    socket) of the data at the head of its queue, peeked (waits for it). None
    where the kernel gives none."""
    try:
        _, anc, _, _ = sock.recvmsg(1, socket.CMSG_SPACE(16), socket.MSG_PEEK)
    except OSError:
        return None
    mono, real = time.monotonic(), time.time()
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            sec, ns = struct.unpack("qq", data[:16])
            return mono - max(0.0, real - (sec + ns / 1e9))
    return None


class Front(http.server.ThreadingHTTPServer):
    """The loopback front lvd serve --url talks to. A request is timed from
    the moment its first bytes reached this host (arrived(): lvd serve sends
    the moment its connection is up), else from when its connection was
    accepted: so a slow thread here (its accept, its read) shortens neither
    this client's figure nor lengthens lvd serve's against it."""

    def __init__(self, *args):
        super().__init__(*args)
        self.accepted = {}

    def server_bind(self):
        self.socket.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)  # inherited by each accepted socket
        super().server_bind()

    def get_request(self):
        sock, addr = super().get_request()
        self.accepted[id(sock)] = time.monotonic()
        return sock, addr

    def accepted_at(self, sock):
        return self.accepted.pop(id(sock))


def event_tokens(ev, tokens):
    """The tokens generated so far once event ev is in, from tokens before it:
    its tokens_predicted where it says one (mainline's every event); else one
    more per token it brings (ik_llama.cpp's token events carry only their
    content, its last event the total)."""
    if "tokens_predicted" in ev:
        return ev["tokens_predicted"]
    if isinstance(ev.get("tokens"), list):
        return tokens + len(ev["tokens"])
    return tokens + (1 if ev.get("content") else 0)


def handler_for(upstream, timing, timeout):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def setup(self):
            self.arrived = arrived(self.request)  # before the reader takes the bytes
            super().setup()

        def chunk(self, data):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        def do_GET(self):  # /health, /metrics: passed on as they are
            c = http.client.HTTPConnection("127.0.0.1", upstream, timeout=timeout)
            c.request("GET", self.path)
            r = c.getresponse()
            body = r.read()
            c.close()
            self.send_response(r.status)
            self.send_header("Content-Type", r.getheader("Content-Type", "text/plain"))
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            t0 = self.server.accepted_at(self.request)
            t0 = self.arrived if self.arrived is not None else t0
            c = http.client.HTTPConnection("127.0.0.1", upstream, timeout=timeout)
            c.connect()
            c.request("POST", self.path, body=raw, headers={"Content-Type": "application/json"})
            r = c.getresponse()
            self.send_response(r.status)
            self.send_header("Content-Type", r.getheader("Content-Type", "text/event-stream"))
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            first, tokens, why = None, 0, None
            try:
                while True:
                    line = r.readline()
                    if not line:
                        break
                    ev = None
                    if r.status == 200 and line.startswith(b"data:") and line[5:].strip() != b"[DONE]":
                        ev = json.loads(line[5:])  # a malformed event goes no further
                    self.chunk(line)
                    t = time.monotonic()  # passed on: lvd serve can have it from now
                    if ev is not None:
                        if "error" in ev:
                            why = "llama-server refused it: %s" % ev["error"]
                        n = event_tokens(ev, tokens)
                        if n > tokens and first is None:
                            first = t - t0
                        tokens = max(tokens, n)
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (OSError, ValueError) as e:
                why = why or "%s: %s" % (type(e).__name__, e)
            end = time.monotonic()
            c.close()
            timing.check_body(raw)
            with timing.lock:
                if r.status != 200:
                    timing.failed.append(("HTTP %d" % r.status, t0, end))
                elif why or first is None:
                    timing.failed.append((why or "no token came", t0, end))
                else:
                    timing.done.append((first, tokens, t0, end))
                    if tokens != timing.g:
                        timing.bodies.append("%d tokens came, not %d" % (tokens, timing.g))

    return Handler


def lvd_run(port, n, p, g, requests, timeout):
    """lvd serve --url's figures (None when it failed)."""
    argv = [os.path.join(os.environ["LVD_BIN"], "lvd"), "serve", "--url", "http://127.0.0.1:%d" % port,
            "--load", "%d:%d:%d" % (n, p, g), "--requests", str(requests), "--rounds", "1", "--json"]
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError("lvd serve --url: exit %d: %s" % (r.returncode, r.stderr.decode()[-300:]))
    f = json.loads(r.stdout)["cells"][0]["figures"]
    return {"ttft_ms_p50": f["ttft_ms"]["p50"], "aggregate_tps": f["aggregate_tps"],
            "requests": f["requests"], "errors": f["errors"], "first_error": f["first_error"]}


def figures(t):
    if not t.done:
        raise RuntimeError("the client timed no request: %s" % [f[0] for f in t.failed[:1]])
    # the run's span, failed requests included, as lvd serve's wall: a failure
    # first or last still took its time out of the run
    ends = [(r[2], r[3]) for r in t.done] + [(f[1], f[2]) for f in t.failed]
    span = max(e for _, e in ends) - min(s for s, _ in ends)
    return {"ttft_ms_p50": statistics.median(r[0] for r in t.done) * 1e3,
            "aggregate_tps": sum(r[1] for r in t.done) / span,
            "requests": len(t.done) + len(t.failed), "errors": len(t.failed), "first_error": (t.failed or [(None,)])[0][0]}


def main():
    args = sys.argv[1:]
    timeout = 600.0
    if "--timeout" in args:
        k = args.index("--timeout")
        timeout = float(args[k + 1])
        del args[k:k + 2]
    if len(args) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    serve_json, arm, n, p, g, requests, log_file = args
    arm, n, p, g, requests = int(arm), int(n), int(p), int(g), int(requests)
    a = json.load(open(serve_json))["arms"][arm - 1]
    env = dict(os.environ)
    for w in a["env"]:
        k, v = w.split("=", 1)
        env[k] = v
    port = free_port()
    # one core left to lvd serve and this client: with a CPU server spinning on
    # every core of a 2-core host, lvd serve waited for a core after each token
    # was passed on to it (TTFT ratios up to 1.25 at N = 1 on a quiet host)
    threads = max(1, len(os.sched_getaffinity(0)) - 1)  # the cores this process may use
    argv = list(a["argv"]) + ["--host", "127.0.0.1", "--port", str(port), "-np", str(n), "-t", str(threads)]
    res = {"lvd": None, "client": None, "ttft_ratio": None, "tps_ratio": None, "bodies": [],
           "group_gone": None, "error": None}
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.setswitchinterval(1e-4)  # a thread with a token to pass on waits 0.1 ms for the GIL, not 5
    with open(log_file, "wb") as log:
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=die_with_us)
    front = None
    try:
        t0 = time.monotonic()
        while not healthy(port):
            if proc.poll() is not None or time.monotonic() - t0 > timeout:
                raise RuntimeError("llama-server never answered /health 200")
            time.sleep(0.05)
        timing = Timing(p, g)
        front = Front(("127.0.0.1", 0), handler_for(port, timing, timeout))
        threading.Thread(target=front.serve_forever, daemon=True).start()
        res["lvd"] = lvd_run(front.server_address[1], n, p, g, requests, timeout)
        res["client"] = figures(timing)
        res["bodies"] = timing.bodies
        res["ttft_ratio"] = res["lvd"]["ttft_ms_p50"] / res["client"]["ttft_ms_p50"]
        res["tps_ratio"] = res["lvd"]["aggregate_tps"] / res["client"]["aggregate_tps"]
    except (RuntimeError, OSError, subprocess.TimeoutExpired, ValueError, KeyError, TypeError) as e:
        res["error"] = str(e)
    finally:
        if front:
            front.shutdown()
        res["group_gone"] = stop(proc)[1]
    print(json.dumps(res))
    return 0 if res["ttft_ratio"] is not None and res["group_gone"] else 1


if __name__ == "__main__":
    sys.exit(main())
