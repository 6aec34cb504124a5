#!/usr/bin/env python3
"""tests/real/serve.py: start a real llama-server from the launch line lvd select printed.

    serve.py LINE_FILE JSON_FILE LOG_FILE [--timeout S] [--predict N]

LINE_FILE holds the launch line `lvd select` printed (its first line is used);
JSON_FILE what `lvd select --json` printed for the same choice. The line is
split with shlex (POSIX rules, the quoting lvd uses; no shell ever runs it),
leading NAME=VALUE words are environment assignments (as sh treats them), and
the result must equal the JSON's env[] and argv[]: the line a service script
would exec is the argv that runs here. Only `--host 127.0.0.1 --port P` (a free
loopback port) and `-lv 4` where its --help lists it (llama.cpp's log verbosity, so that the log says
where the layers went) are appended. The server runs in its own session
(process group); the script waits for GET /health to answer 200, asks
POST /completion for N tokens, then ends the whole group: SIGTERM, and SIGKILL
after a grace period. The server's stdout+stderr go to LOG_FILE.

Prints one JSON object: {"argv", "env", "port", "health", "health_s",
"completion", "tokens", "offloaded", "using_devices", "exit", "group_gone",
"error"} and exits 0 when the server answered /health with 200 and ended, else 1.
"""
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method, url, body=None, timeout=5.0):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError):
        return None, b""


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def stop(proc, grace=10.0):
    """Ends the server's whole process group: SIGTERM, then SIGKILL."""
    pgid = proc.pid  # start_new_session: the child leads its own group
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        if not group_alive(pgid):
            break
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            break
        end = time.monotonic() + wait
        while time.monotonic() < end and group_alive(pgid):
            if proc.poll() is not None and not group_alive(pgid):
                break
            time.sleep(0.05)
            proc.poll()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    return proc.returncode, not group_alive(pgid)


def main():
    args = sys.argv[1:]
    timeout, predict = 120.0, 4
    pos = []
    i = 0
    while i < len(args):
        if args[i] == "--timeout":
            timeout = float(args[i + 1]); i += 2
        elif args[i] == "--predict":
            predict = int(args[i + 1]); i += 2
        else:
            pos.append(args[i]); i += 1
    if len(pos) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    line_file, json_file, log_file = pos
    res = {"argv": None, "env": None, "port": None, "health": None, "health_s": None,
           "completion": None, "tokens": None, "offloaded": None, "using_devices": [],
           "exit": None, "group_gone": None, "error": None}

    with open(line_file) as f:
        line = f.readline().rstrip("\n")
    with open(json_file) as f:
        sel = json.load(f)
    words = shlex.split(line, posix=True)
    env_words = []
    while words and ASSIGN.match(words[0]):
        env_words.append(words.pop(0))
    res["argv"], res["env"] = words, env_words
    if words != sel.get("argv"):
        res["error"] = "the printed line's words %r are not --json's argv %r" % (words, sel.get("argv"))
        print(json.dumps(res))
        return 1
    if env_words != list(sel.get("env") or []):
        res["error"] = "the printed line's environment %r is not --json's env %r" % (env_words, sel.get("env"))
        print(json.dumps(res))
        return 1
    if not words or os.path.basename(words[0]) != "llama-server" or not os.path.isabs(words[0]):
        res["error"] = "argv[0] is not an absolute path to llama-server: %r" % (words[:1],)
        print(json.dumps(res))
        return 1

    env = dict(os.environ)
    for w in env_words:
        k, v = w.split("=", 1)
        env[k] = v

    # a SIGTERM (ctest's timeout) still ends the server's group: finally runs
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    # -lv 4 where the server lists it (mainline); ik_llama.cpp's has no -lv and
    # logs its loads at its default verbosity
    helptext = subprocess.run([words[0], "--help"], stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                              errors="replace")
    verbosity = ["-lv", "4"] if re.search(r"^\s*-lv,", helptext.stdout + helptext.stderr, re.M) else []

    def launch():
        port = free_port()
        argv = words + ["--host", "127.0.0.1", "--port", str(port)] + verbosity
        log = open(log_file, "wb")
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        return port, log, proc, time.monotonic()

    def says_bind():
        with open(log_file, errors="replace") as f:
            return re.search(r"couldn't bind|address already in use", f.read(), re.I) is not None

    port, log, proc, t0 = launch()
    tries = 1
    try:
        while time.monotonic() - t0 < timeout:
            if proc.poll() is not None:
                # the port was free when asked; another process took it before
                # the server bound it: another port (three tries)
                if tries < 3 and (log.close() or says_bind()):
                    port, log, proc, t0 = launch()
                    tries += 1
                    continue
                res["error"] = "llama-server exited with %s before /health answered 200" % proc.returncode
                break
            base = "http://127.0.0.1:%d" % port
            code, _ = http("GET", base + "/health", timeout=2.0)
            res["health"] = code
            if code == 200:
                res["health_s"] = round(time.monotonic() - t0, 3)
                break
            time.sleep(0.1)
        else:
            res["error"] = "/health did not answer 200 within %.0f s (last: %s)" % (timeout, res["health"])
        res["port"] = port
        if res["health"] == 200 and predict > 0:
            code, body = http("POST", base + "/completion",
                              {"prompt": "Once upon a time", "n_predict": predict, "temperature": 0,
                               "cache_prompt": False}, timeout=timeout)
            res["completion"] = code
            try:
                res["tokens"] = json.loads(body).get("tokens_predicted")
            except (ValueError, AttributeError):
                res["tokens"] = None
    finally:
        res["exit"], res["group_gone"] = stop(proc)
        log.close()
    with open(log_file, errors="replace") as f:
        text = f.read()
    m = re.findall(r"offloaded (\d+)/(\d+) layers to GPU", text)
    res["offloaded"] = ("%s/%s" % m[-1]) if m else None
    # ik_llama.cpp's llama-server says "CPU: using device CPU" of the host itself
    res["using_devices"] = sorted(set(re.findall(r"using device (\S+)", text)) - {"CPU"})
    print(json.dumps(res))
    return 0 if res["health"] == 200 and res["group_gone"] and not res["error"] else 1


if __name__ == "__main__":
    sys.exit(main())
