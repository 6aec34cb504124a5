#!/usr/bin/env python3
"""httpd.py: a loopback stand-in for GitHub's release API and download host,
for the fetch tests and the fetch benchmark. Not a general web server.

    httpd.py --dir DIR [--scenarios] [--perf-bytes N] [--engine FILE] [--token T]
             [--tls-cert PEM --tls-key PEM]

Binds 127.0.0.1 on a free port, prints the port on stdout (one line), then
serves until killed:

  GET /api/releases/tags/<tag>      one release object (404 when unknown)
  GET /api/releases?per_page=N&page=P  the newest N releases (page P, from 1)
  GET /download/<tag>/<name>        the archive bytes (DIR/files/<tag>/<name>)
  GET /redirect/<tag>/<name>        302 to /download/<tag>/<name>

API fault modes by path prefix instead of /api: /api-ratelimit (403 with
x-ratelimit-remaining: 0), /api-429, /api-500, /api-garbage (200, not JSON),
/api-auth (401 unless "Authorization: Bearer <--token>"), /api-echo (500 whose
message repeats the Authorization header, to prove it is scrubbed).
Download fault modes, from ?fault=MODE or DIR/faults.json {"<tag>/<name>": MODE}:
404, 500, truncate (Content-Length larger than the body, then a clean close),
drop (half the body, then a connection reset), slow (a little, then nothing),
short (half the body with a matching Content-Length: shorter than the API says).

--scenarios builds the test archives and DIR/releases.json (b100..b123, then
the SemVer era: build b10991, a prerelease as llama.cpp publishes every build
since b10573, and releases v0.4.1 .. v0.4.4 whose nightly-tag.txt names b10991,
holds no build tag, is not the bytes the API names, or is missing); --perf-bytes builds
one large archive (release b999999) for the benchmark. Either writes
DIR/digests.txt: "<tag> <asset> <sha256>" per line, the true digests.
"""
import argparse
import hashlib
import io
import json
import os
import socket
import ssl
import struct
import sys
import tarfile
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

BASE_TIME = 1767225600  # 2026-01-01T00:00:00Z
VULKAN = "bin-ubuntu-vulkan-x64"
CPU = "bin-ubuntu-x64"
PERF_TAG = "b999999"  # the benchmark's release
NIGHTLY_TAG = "nightly-tag.txt"  # a SemVer release's only asset: the build it stands for

ENGINE_SCRIPT = b"#!/bin/sh\necho 'fake llama.cpp binary from tests/support/httpd.py'\n"
BROKEN_ENGINE = b"#!/bin/sh\necho 'ggml_vulkan: cannot load the driver' >&2\nexit 3\n"


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


# --- archives ----------------------------------------------------------------

def tar_add(tf, name, data=b"", mode=0o644, kind=tarfile.REGTYPE, linkname="", size=None):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.mtime = BASE_TIME
    info.linkname = linkname
    if kind == tarfile.REGTYPE:
        info.size = len(data) if size is None else size
        tf.addfile(info, io.BytesIO(data) if size is None else None)
    else:
        if kind in (tarfile.CHRTYPE, tarfile.BLKTYPE):
            info.devmajor, info.devminor = 1, 3
        tf.addfile(info)


def tar_gz(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT,
                      compresslevel=6) as tf:  # gzip's default, as upstream's tar -czvf
        for e in entries:
            tar_add(tf, **e)
    return buf.getvalue()


def zip_bytes(entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for e in entries:
            zi = zipfile.ZipInfo(e["name"], date_time=(2026, 1, 1, 0, 0, 0))
            zi.external_attr = (0o100000 | e.get("mode", 0o644)) << 16
            zi.create_system = 3
            zf.writestr(zi, e.get("data", b""))
    return buf.getvalue()


def engine_files(prefix, engine):
    """What a release archive holds: the tools, a library and its symlink."""
    return [
        dict(name=prefix + "llama-server", data=engine, mode=0o755),
        dict(name=prefix + "llama-bench", data=engine, mode=0o755),
        dict(name=prefix + "libllama.so.0", data=b"\x7fELF not really\n" * 64),
        dict(name=prefix + "libllama.so", kind=tarfile.SYMTYPE, linkname="libllama.so.0"),
        dict(name=prefix + "LICENSE", data=b"MIT License (test fixture)\n"),
    ]


def good_tar(tag, engine):
    return tar_gz([dict(name="llama-%s" % tag, kind=tarfile.DIRTYPE, mode=0o755)] +
                  engine_files("llama-%s/" % tag, engine))


def old_zip(engine):
    files = [e for e in engine_files("build/bin/", engine) if e.get("kind") is None]
    return zip_bytes(files)


def scenarios(engine):
    """(tag, [(asset name, bytes, api digest mode, download fault)], extra release fields)"""
    good = lambda t: good_tar(t, engine)
    name = lambda t, fl=VULKAN, ext="tar.gz": "llama-%s-%s.%s" % (t, fl, ext)
    evil_abs = "/tmp/lvd-fetch-test-evil-%d" % os.getpid()
    s = [
        ("b100", [(name("b100"), good("b100"), "real", None),
                  (name("b100", CPU), good("b100"), "real", None)]),
        ("b101", [(name("b101", CPU, "zip"), old_zip(engine), "real", None)]),
        ("b102", [(name("b102"), good("b102"), "wrong", None)]),
        ("b103", [(name("b103"), good("b103"), "null", None)]),
        ("b104", [(name("b104", ext="zip"),
                   zip_bytes([dict(name="llama-b104/llama-server", data=engine, mode=0o755),
                              dict(name="llama-b104/../../evil", data=b"zip-slip\n")]),
                   "real", None)]),
        ("b105", [(name("b105"), tar_gz(engine_files("llama-b105/", engine) +
                                       [dict(name="llama-b105/escape", kind=tarfile.SYMTYPE,
                                             linkname="../../../../etc")]), "real", None)]),
        ("b106", [(name("b106"), tar_gz(engine_files("llama-b106/", engine) +
                                       [dict(name=evil_abs, data=b"absolute\n")]), "real", None)]),
        ("b107", [(name("b107"), tar_gz(engine_files("llama-b107/", engine) +
                                       [dict(name="llama-b107/passwd", kind=tarfile.LNKTYPE,
                                             linkname="../../etc/passwd")]), "real", None)]),
        ("b108", [(name("b108"), tar_gz(engine_files("llama-b108/", engine) +
                                       [dict(name="llama-b108/null", kind=tarfile.CHRTYPE,
                                             mode=0o666)]), "real", None)]),
        ("b109", [(name("b109"), tar_gz(engine_files("llama-b109/", engine) +
                                       [dict(name="llama-b109/huge", size=1 << 40)]), "real", None)]),
        ("b110", [(name("b110"), good("b110"), "real", "truncate")]),
        ("b111", [(name("b111"), good("b111"), "real", "drop")]),
        ("b112", [(name("b112"), None, "real-of:" + "b100", None)]),
        ("b113", [(name("b113", CPU), good("b113"), "real", None)]),
        ("b114", [(name("b114"), tar_gz(engine_files("llama-b114/", engine) +
                                       [dict(name="llama-b114/d", kind=tarfile.DIRTYPE, mode=0o755),
                                        dict(name="llama-b114/d/s", kind=tarfile.SYMTYPE,
                                             linkname="../../LICENSE"),
                                        dict(name="llama-b114/moved", kind=tarfile.LNKTYPE,
                                             linkname="llama-b114/d/s")]), "real", None)]),
        ("b115", [(name("b115"), good("b115"), "real", "slow")]),
        ("b116", [(name("b116"), good("b116"), "real", "redirect")]),
        ("b117", [(name("b117"), good("b117"), "real", None)], dict(draft=True)),
        ("b118", [(name("b118"), good("b118"), "real", None)], dict(prerelease=True)),
        ("b119", [(name("b119"), tar_gz([dict(name="docs/README", data=b"no binaries\n")]),
                   "real", None)]),
        ("b120", [(name("b120"), tar_gz(engine_files("llama-b120/", engine) +
                                       [dict(name="llama-b120/blob", data=os.urandom(2 << 20))]),
                   "real", None)]),
        ("b121", [(name("b121"), tar_gz(engine_files("llama-b121/", BROKEN_ENGINE)), "real", None)]),
        ("b122", [(name("b122"), good("b122"), "real", "short")]),
        ("b123", [(name("b123"), good("b123"), "real", "500")]),
        # the SemVer era (make-release.yml): every build a prerelease, and a
        # release vX.Y.Z whose one asset, nightly-tag.txt, names its build
        ("b10991", [(name("b10991"), good("b10991"), "real", None),
                    (name("b10991", CPU), good("b10991"), "real", None)], dict(prerelease=True)),
        ("v0.4.1", [(NIGHTLY_TAG, b"b10991\n", "real", None)]),
        ("v0.4.2", [(NIGHTLY_TAG, b"not a build\n", "real", None)]),   # not one build tag
        ("v0.4.3", [(NIGHTLY_TAG, b"b10991\n", "wrong", None)]),       # not the bytes the API names
        ("v0.4.4", []),                                                # no nightly-tag.txt
    ]
    return s


def perf_archive(total, engine):
    """A release-shaped archive of about total bytes: half random, half
    compressible, like real binaries."""
    files = engine_files("llama-%s/" % PERF_TAG, engine)
    chunk = 1 << 20
    n = max(1, total // chunk)
    per_file = 16
    pattern = b"".join(struct.pack("<IIQ", i, i * 2654435761 & 0xffffffff, i * i)
                       for i in range(chunk // 16))
    for f in range((n + per_file - 1) // per_file):
        parts = []
        for c in range(min(per_file, n - f * per_file)):
            parts.append(os.urandom(chunk) if (f * per_file + c) % 2 == 0 else pattern)
        files.append(dict(name="llama-%s/libggml-part%02d.so" % (PERF_TAG, f), data=b"".join(parts)))
    return [(PERF_TAG, [("llama-%s-%s.tar.gz" % (PERF_TAG, VULKAN), tar_gz(files), "real", None)])]


def build(root, items):
    """Writes DIR/files, DIR/releases.json, DIR/faults.json, DIR/digests.txt."""
    releases, faults, digests, blobs = [], {}, [], {}
    for i, item in enumerate(items):
        tag, assets = item[0], item[1]
        extra = item[2] if len(item) > 2 else {}
        os.makedirs(os.path.join(root, "files", tag), exist_ok=True)
        rel_assets = []
        for name, data, mode, fault in assets:
            digest = None
            if data is not None:
                with open(os.path.join(root, "files", tag, name), "wb") as f:
                    f.write(data)
                real = hashlib.sha256(data).hexdigest()
                blobs[name] = (real, len(data))
                digests.append("%s %s %s" % (tag, name, real))
            if mode == "real":
                digest = "sha256:" + real
            elif mode == "wrong":
                digest = "sha256:" + hashlib.sha256(b"other bytes" + data).hexdigest()
            elif mode.startswith("real-of:"):
                other = [b for n, b in blobs.items() if n.startswith("llama-%s-" % mode[8:])][0]
                digest = "sha256:" + other[0]
            path = "redirect" if fault == "redirect" else "download"
            if fault and fault != "redirect":
                faults["%s/%s" % (tag, name)] = fault
            if data is not None:
                size = len(data)
            else:  # listed, never uploaded: the size of the asset it borrows a digest from
                size = [b for n, b in blobs.items() if n.startswith("llama-%s-" % mode[8:])][0][1]
            rel_assets.append({"name": name, "size": size, "digest": digest,
                               "content_type": "application/octet-stream",
                               "browser_download_url": "{base}/%s/%s/%s" % (path, tag, name)})
        release = {"tag_name": tag, "name": tag, "draft": False, "prerelease": False,
                   "published_at": iso(BASE_TIME + i * 3600), "assets": rel_assets}
        release.update(extra)
        releases.append(release)
    releases.reverse()  # newest first, as GitHub lists them
    with open(os.path.join(root, "releases.json"), "w") as f:
        json.dump(releases, f, indent=1)
    with open(os.path.join(root, "faults.json"), "w") as f:
        json.dump(faults, f, indent=1)
    with open(os.path.join(root, "digests.txt"), "w") as f:
        f.write("\n".join(digests) + "\n")


# --- serving -----------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "lvd-test-httpd/1"

    def log_message(self, fmt, *args):
        if os.environ.get("LVD_HTTPD_LOG"):
            sys.stderr.write("httpd: " + (fmt % args) + "\n")

    def reply(self, code, body, ctype="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def releases(self):
        with open(os.path.join(self.server.root, "releases.json")) as f:
            text = f.read()
        base = "http://127.0.0.1:%d" % self.server.server_address[1]
        return json.loads(text.replace("{base}", base))

    def do_GET(self):
        url = urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        query = parse_qs(url.query)
        head = parts[0] if parts else ""
        if head.startswith("api"):
            return self.api(head, parts[1:], query)
        if head in ("download", "redirect") and len(parts) == 3:
            if head == "redirect":
                self.send_response(302)
                self.send_header("Location", "/download/%s/%s" % (parts[1], parts[2]))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            return self.download(parts[1], parts[2], query)
        self.reply(404, {"message": "Not Found"})

    def api(self, head, rest, query):
        auth = self.headers.get("Authorization", "")
        if head == "api-ratelimit":
            return self.reply(403, {"message": "API rate limit exceeded for 127.0.0.1."},
                              headers=[("x-ratelimit-remaining", "0"),
                                       ("x-ratelimit-reset", str(BASE_TIME + 3600))])
        if head == "api-429":
            return self.reply(429, {"message": "Too Many Requests"})
        if head == "api-500":
            return self.reply(500, {"message": "Server Error"})
        if head == "api-garbage":
            return self.reply(200, b"<html>not json</html>", "text/html")
        if head == "api-echo":
            return self.reply(500, {"message": "you sent " + auth})
        if head == "api-auth" and auth != "Bearer " + (self.server.token or ""):
            return self.reply(401, {"message": "Bad credentials"})
        if head not in ("api", "api-auth"):
            return self.reply(404, {"message": "Not Found"})
        rels = self.releases()
        if rest == ["releases"]:
            n = int(query.get("per_page", ["30"])[0])
            page = int(query.get("page", ["1"])[0])
            return self.reply(200, rels[(page - 1) * n:page * n])
        if len(rest) == 3 and rest[:2] == ["releases", "tags"]:
            for r in rels:
                if r["tag_name"] == rest[2]:
                    return self.reply(200, r)
        return self.reply(404, {"message": "Not Found"})

    def download(self, tag, name, query):
        fault = query.get("fault", [None])[0]
        if fault is None:
            with open(os.path.join(self.server.root, "faults.json")) as f:
                fault = json.load(f).get("%s/%s" % (tag, name))
        path = os.path.join(self.server.root, "files", tag, name)
        if fault in ("404", "500") or not os.path.isfile(path):
            code = int(fault) if fault in ("404", "500") else 404
            return self.reply(code, b"no such file\n", "text/plain")
        size = os.path.getsize(path)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(size // 2 if fault == "short" else size))
        if fault:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        with open(path, "rb") as f:
            if fault is None:
                self.connection.sendfile(f)
                return
            half = f.read(size // 2)
            if fault == "slow":
                self.wfile.write(half[:1024])
                self.wfile.flush()
                time.sleep(30)
            elif fault in ("truncate", "short"):
                self.wfile.write(half)
                self.wfile.flush()
            elif fault == "drop":
                self.wfile.write(half)
                self.wfile.flush()
                time.sleep(0.2)
                # a reset, not a clean close: linger 0 and close the descriptor
                # before socketserver can send its FIN
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                           struct.pack("ii", 1, 0))
                os.close(self.connection.detach())
            self.close_connection = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--scenarios", action="store_true")
    ap.add_argument("--perf-bytes", type=int, default=0)
    ap.add_argument("--engine", help="file to ship as llama-server/llama-bench")
    ap.add_argument("--token", help="the bearer token /api-auth accepts")
    ap.add_argument("--tls-cert", help="serve https with this certificate (and --tls-key)")
    ap.add_argument("--tls-key")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    engine = ENGINE_SCRIPT
    if args.engine:
        with open(args.engine, "rb") as f:
            engine = f.read()
    if args.scenarios:
        build(args.dir, scenarios(engine))
    elif args.perf_bytes:
        build(args.dir, perf_archive(args.perf_bytes, engine))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    server.root = args.dir
    server.token = args.token
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
