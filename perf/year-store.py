#!/usr/bin/env python3
"""year-store.py: builds the store of a year of nights the way a user's nightly
fills it, then times every command of the year table (docs/performance.md) on it.

A year: 5 engines (CPU, CUDA and Vulkan builds of b9700, CUDA and Vulkan of
b9800; copies of the fake engine, registered with `lvd fetch --register` and
checked with `lvd check`), 3 models (tests/fixtures/models kv-*.gguf), 16 arms
per model over the engines, pp512 and tg128, 30 samples each, one night a day:
per night one llama-bench -o jsonl file per engine and model (15 files), read
by one `lvd store import F1 ... F15 --engine E1 --model M1 ...` (each file's
engine and model, given once per file), then `lvd select --record` per model and `lvd pin`,
each under LVD_FAKE_NOW = that night. 365 nights = 1 051 200 samples, 17 520
runs, 5 475 files, 365 pin decisions. Speeds drift slowly with noise of 1-2 %.

It also builds, in DIR/small, a store of the year's last 3 nights the same
way (the goal of the select row was "2.9 ms on a small store"): select is
timed on it in turn with the year's, and the ratio printed.

Then it prints, for the full store: lvd select (warm), select --record,
evidence --nights 14 and 365, pin --no-record, store runs --limit 10 (median of
a few runs; 101 for select, store runs and the floor, run in turn by
build/perf/perf_spawn when it was built (posix_spawn, output on /dev/null:
the process's own cost, not Python's pipes): wall ms of the process, and its
CPU ms, user + system, which a busy machine inflates less; and /bin/true
started the same way, the floor they read against: this machine's speed
wanders between runs), store bytes per sample (file and WAL after a
checkpoint) and where they go (each table with its indexes), import samples/s (per file of a night, over the year; a week of
one engine's files in one invocation; one big file), re-importing the big
file, and the RSS of importing a 35 000-row llama-bench.sqlite (the import
rows write a copy of the store, so the year store stays the year). With --time
(and --dir of a store it built, the same --nights) it only times the reading
commands again: select (and on DIR/small when it is there), evidence, pin,
store runs.

  perf/year-store.py [--nights N] [--bin build/bin] [--fake build/tests/fake-engine]
                           [--models tests/fixtures/models] [--dir DIR] [--keep] [--time]

Not a test: it prints numbers and fails nothing (exit 1 when a setup step
fails). Run from the repository root after a build; it needs only python3.
"""
import argparse
import datetime as dt
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

DAY = 86400
START = int(dt.datetime(2025, 12, 1, 2, 0, tzinfo=dt.timezone.utc).timestamp())

# engine name -> (build number, scenario, arms: list of dicts of llama-bench fields)
ENGINES = {
    "b9700-cpu": (9700, "build_number = 9700\ncpu.tg = 50\ncpu.pp = 400\n",
                  [{"n_threads": 8}, {"n_threads": 16}]),
    "b9700-cuda": (9700, "build_number = 9700\ndevice = CUDA0|NVIDIA H200|143771|140000|9.0\n"
                   "dev.CUDA0.tg = 990\ndev.CUDA0.pp = 85000\n",
                   [{"flash_attn": f, "n_ubatch": u} for f in (0, 1) for u in (256, 512)]),
    "b9700-vulkan": (9700, "build_number = 9700\ndevice = Vulkan0|NVIDIA H200|143771|140000\n"
                     "dev.Vulkan0.tg = 700\ndev.Vulkan0.pp = 17000\n",
                     [{"flash_attn": 0}, {"flash_attn": 1}, {"flash_attn": 1, "n_ubatch": 256}]),
    "b9800-cuda": (9800, "build_number = 9800\ndevice = CUDA0|NVIDIA H200|143771|140000|9.0\n"
                   "dev.CUDA0.tg = 1000\ndev.CUDA0.pp = 86000\n",
                   [{"flash_attn": f, "n_ubatch": u} for f in (0, 1) for u in (256, 512)]),
    "b9800-vulkan": (9800, "build_number = 9800\ndevice = Vulkan0|NVIDIA H200|143771|140000\n"
                     "dev.Vulkan0.tg = 705\ndev.Vulkan0.pp = 17400\n",
                     [{"flash_attn": 0}, {"flash_attn": 1}, {"flash_attn": 1, "n_ubatch": 256}]),
}
BASE_TG = {"cpu": 50.0, "cuda": 990.0, "vulkan": 700.0}
BASE_PP = {"cpu": 400.0, "cuda": 85000.0, "vulkan": 17000.0}
MODELS = ["kv-llama.gguf", "kv-gemma2.gguf", "kv-qwen2moe.gguf"]
SAMPLES = 30
SMALL_NIGHTS = 3  # the small store select is timed on beside the year (in DIR/small)


def die(msg):
    print("year-store: " + msg, file=sys.stderr)
    sys.exit(1)


class World:
    def __init__(self, a, where=None):
        self.bin = os.path.abspath(a.bin)
        self.fake = os.path.abspath(a.fake)
        self.dir = where or a.dir or tempfile.mkdtemp(prefix="lvd-year.")
        os.makedirs(self.dir, exist_ok=True)
        self.db = os.path.join(self.dir, "store.db")
        self.pin = os.path.join(self.dir, "llama.pin")
        self.models = [os.path.abspath(os.path.join(a.models, m)) for m in MODELS]
        self.env = dict(os.environ, LVD_STORE=self.db, NO_COLOR="1", LVD_NO_PROGRESS="1",
                        LVD_HOST="year-box", LVD_PIN_FILE=self.pin)

    def lvd(self, args, now=None, ok=(0,), quiet=True, env_over=None):
        env = dict(self.env, **(env_over or {}))
        if now is not None:
            env["LVD_FAKE_NOW"] = str(now)
        r = subprocess.run([os.path.join(self.bin, "lvd")] + args, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode not in ok:
            die("lvd %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()[-400:]))
        return r


def setup(w):
    for name, (num, scn, _) in ENGINES.items():
        d = os.path.join(w.dir, name)
        os.makedirs(d, exist_ok=True)
        for p in ("llama-bench", "llama-server", "llama-perplexity"):
            shutil.copy(w.fake, os.path.join(d, p))
        with open(os.path.join(d, "fake-scenario"), "w") as f:
            f.write(scn)
        w.lvd(["fetch", "--register", d, "--build", "b%d" % num, "--name", name], now=START - DAY)
    with open(w.pin, "w") as f:
        f.write("build = b9700\nflavour = bin-ubuntu-vulkan-x64\n")
    for m in w.models:
        r = w.lvd(["store", "--json", "model", m])
        TENSOR_BYTES[os.path.basename(m)] = json.loads(r.stdout)["shape"]["tensor_bytes"]
        w.lvd(["check", "--model", m], now=START - DAY, ok=(0, 5))


def backend_of(name):
    return name.split("-")[1]


TENSOR_BYTES = {}


def row(name, num, arm, model, n_prompt, n_gen, t, speed, rnd):
    be = backend_of(name)
    ts = [speed * (1 + rnd.gauss(0, 0.015)) for _ in range(SAMPLES)]
    tokens = n_prompt + n_gen
    ns = [int(tokens / x * 1e9) for x in ts]
    r = {"build_commit": "c%05d" % num, "build_number": num, "cpu_info": "Intel(R) Xeon(R)",
         "gpu_info": "" if be == "cpu" else "NVIDIA H200",
         "backends": {"cpu": "CPU", "cuda": "CUDA", "vulkan": "Vulkan"}[be],
         "model_filename": model, "model_type": "llama 1B F16", "model_size": TENSOR_BYTES.get(model, 1705254912),
         "model_n_params": 852559872, "n_batch": 2048, "n_ubatch": arm.get("n_ubatch", 512),
         "n_threads": arm.get("n_threads", 16), "cpu_mask": "0x0", "cpu_strict": False, "poll": 50,
         "type_k": "f16", "type_v": "f16", "n_gpu_layers": -1 if be == "cpu" else 99,
         "n_cpu_moe": 0, "split_mode": "layer", "main_gpu": 0, "no_kv_offload": False,
         "flash_attn": arm.get("flash_attn", -1),
         "devices": "auto" if be == "cpu" else ("CUDA0" if be == "cuda" else "Vulkan0"),
         "tensor_split": "0.00", "use_mmap": True, "embeddings": False,
         "n_prompt": n_prompt, "n_gen": n_gen, "n_depth": 0,
         "test_time": dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
         "avg_ns": int(statistics.mean(ns)), "stddev_ns": int(statistics.pstdev(ns)),
         "avg_ts": statistics.mean(ts), "stddev_ts": statistics.pstdev(ts),
         "samples_ns": ns, "samples_ts": [round(x, 3) for x in ts]}
    return json.dumps(r)


def night_files(w, night, rnd):
    """One jsonl file per engine and model for this night: [(engine, model, path, samples)]."""
    out = []
    t0 = START + night * DAY
    drift = 1 + 0.02 * ((night % 90) / 90.0)
    for mi, model in enumerate(w.models):
        for name, (num, _, arms) in ENGINES.items():
            be = backend_of(name)
            lines = []
            t = t0 + mi * 600
            for k, arm in enumerate(arms):
                f = 1.0 + 0.01 * k + (0.005 if num == 9800 else 0)
                lines.append(row(name, num, arm, os.path.basename(model), 512, 0, t, BASE_PP[be] * f * drift, rnd))
                lines.append(row(name, num, arm, os.path.basename(model), 0, 128, t + 1, BASE_TG[be] * f * drift, rnd))
                t += 2
            p = os.path.join(w.dir, "nights", "%03d-%s-%d.jsonl" % (night, name, mi))
            with open(p, "w") as f:
                f.write("\n".join(lines) + "\n")
            out.append((name, model, p, len(lines) * SAMPLES))
    return out


def fill(w, nights, first=0):
    """Nights first .. first + nights - 1 (a small store: the year's last few)."""
    os.makedirs(os.path.join(w.dir, "nights"), exist_ok=True)
    rnd = random.Random(15)
    imp_s = imp_cpu = 0.0
    imp_samples = 0
    files = 0
    for n in range(first, first + nights):
        now = START + n * DAY + 3600
        # the night's files in one invocation, each with its engine and model
        night = night_files(w, n, rnd)
        args = ["store", "import"] + [p for _, _, p, _ in night] + ["--session", "night-%03d" % n]
        for name, model, _, _ in night:
            args += ["--engine", name, "--model", model]
        t, ru = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
        w.lvd(args, now=now)
        imp_s += time.monotonic() - t
        ru2 = resource.getrusage(resource.RUSAGE_CHILDREN)
        imp_cpu += ru2.ru_utime + ru2.ru_stime - ru.ru_utime - ru.ru_stime
        for _, _, p, ns in night:
            imp_samples += ns
            files += 1
            os.unlink(p)
        for m in w.models:
            w.lvd(["select", "--model", m, "--record"], now=now + 60, ok=(0, 1))
        w.lvd(["pin", "--pin-file", w.pin, "--candidate", "b9800"], now=now + 120, ok=(0, 1))
        if (n + 1 - first) % 30 == 0:
            print("  night %d of %d" % (n + 1 - first, nights), file=sys.stderr)
    return imp_samples, imp_s, files, imp_cpu


def timed(w, args, reps=5, now=None, ok=(0, 1)):
    """Median wall ms of `reps` runs of lvd args, and the median CPU ms
    (user + system of the process and what it waited for: on a busy machine
    the wall time is mostly waiting for a core)."""
    wall, cpu = [], []
    for _ in range(reps):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.monotonic()
        w.lvd(args, now=now, ok=ok)
        wall.append((time.monotonic() - t) * 1e3)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3)
    return statistics.median(wall), statistics.median(cpu)


def spawn_timer(w):
    """build/perf/perf_spawn beside --bin when it was built, else None."""
    p = os.path.join(os.path.dirname(w.bin), "perf", "perf_spawn")
    return p if os.access(p, os.X_OK) else None


def timed_interleaved(w, commands, reps, now):
    """timed()'s figures for several commands run in turn, one run of each per
    round (None: /bin/true, started the same way: what any process start
    costs here now; (env, args): lvd args with those variables set), so
    that a row and the floor it reads against share the machine's state
    (its speed wanders between runs). Timed by perf_spawn
    (posix_spawn, output on /dev/null, wait4: the process's own cost) when it
    was built, else by subprocess as timed() does, which adds Python's own
    process start and pipes (about 0.4 ms here) to every figure."""
    commands = [c if c is None or isinstance(c, tuple) else ({}, c) for c in commands]
    timer = spawn_timer(w)
    if timer:
        cmd = [timer, "-n", str(reps), "-k", "0,1"]
        for c in commands:
            cmd += ["--"] + (["/bin/true"] if c is None else
                             ["%s=%s" % kv for kv in c[0].items()] + [os.path.join(w.bin, "lvd")] + c[1])
        r = subprocess.run(cmd, env=dict(w.env, LVD_FAKE_NOW=str(now)), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            die("perf_spawn: exit %d: %s" % (r.returncode, r.stderr.strip()[-400:]))
        out = [json.loads(line) for line in r.stdout.splitlines()]
        for o in out:
            if o["failed"]:
                die("%s: %d of %d runs failed" % (" ".join(o["argv"]), o["failed"], reps))
        return [(o["wall_ms"]["median"], o["cpu_ms"]) for o in out]
    wall = [[] for _ in commands]
    cpu = [[] for _ in commands]
    for _ in range(reps):
        for k, args in enumerate(commands):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.monotonic()
            if args is None:
                subprocess.run(["/bin/true"], env=w.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            else:
                w.lvd(args[1], now=now, ok=(0, 1), env_over=args[0])
            wall[k].append((time.monotonic() - t) * 1e3)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[k].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3)
    return [(statistics.median(wall[k]), statistics.median(cpu[k])) for k in range(len(commands))]


def ms(wc):
    return "%.1f ms (CPU %.1f ms)" % wc


def secs(wc):
    return "%.2f s (CPU %.2f s)" % (wc[0] / 1e3, wc[1] / 1e3)


def child_rss_kib(argv, env):
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execve(argv[0], argv, env)
    _, status, ru = os.wait4(pid, 0)
    return ru.ru_maxrss, os.waitstatus_to_exitcode(status)


def big_sqlite(w, rows):
    """A llama-bench -o sql database (its table llama_bench, its columns: no
    sample arrays) of `rows` rows of one CPU engine and model."""
    p = os.path.join(w.dir, "llama-bench.sqlite")
    if os.path.exists(p):
        os.unlink(p)
    db = sqlite3.connect(p)
    keys = json.loads(row("b9700-cpu", 9700, {}, "m.gguf", 512, 0, START, 400, random.Random(1))).keys()
    cols = [k for k in keys if k not in ("samples_ns", "samples_ts")]
    db.execute("CREATE TABLE llama_bench (%s)" % ", ".join(cols))
    rnd = random.Random(2)
    for i in range(rows):
        r = json.loads(row("b9700-cpu", 9700, {"n_threads": 8 + i % 8}, os.path.basename(w.models[2]),
                           512 if i % 2 == 0 else 0, 0 if i % 2 == 0 else 128, START + i, 400, rnd))
        db.execute("INSERT INTO llama_bench VALUES (%s)" % ",".join("?" * len(cols)),
                   [int(r[c]) if isinstance(r[c], bool) else r[c] for c in cols])
    db.commit()
    db.close()
    return p


def reading_rows(w, last, small):
    """The rows of the commands that read the store, timed at `last`; select
    also on `small` (a World of the year's last nights, or None), in turn
    with the year: the goal's reference, "2.9 ms on a small store"."""
    m = w.models[0]
    w.lvd(["select", "--model", m], now=last, ok=(0, 1))  # warm the identity cache
    cmds = [None, ["select", "--model", m], ["store", "runs", "--limit", "10"]]
    if small:
        small_env = {"LVD_STORE": small.db, "LVD_PIN_FILE": small.pin}
        w.lvd(["select", "--model", m], now=last, ok=(0, 1), env_over=small_env)
        cmds.append((small_env, ["select", "--model", m]))
    timings = timed_interleaved(w, cmds, 101, last)
    floor, select, runs = timings[:3]
    how = "perf_spawn" if spawn_timer(w) else "Python's subprocess (build perf_spawn for the process's own cost)"
    rows = [
        ("a process start (/bin/true started the same way, in turn with the ms rows: their floor; timed by %s)"
         % how, ms(floor)),
        ("lvd select --model M (warm)", ms(select)),
    ]
    if small:
        rows.append(("lvd select --model M (warm), on a store of the year's last %d nights, in turn with the year's"
                     % SMALL_NIGHTS, "%s; the year's / this: %.2f" % (ms(timings[3]), select[0] / timings[3][0])))
    return rows + [
        ("lvd select --record", ms(timed(w, ["select", "--model", m, "--record"], 5, last))),
        ("lvd evidence --nights 14", secs(timed(w, ["evidence", "--nights", "14", "--out",
                                                    os.path.join(w.dir, "page14.md")], 3, last))),
        ("lvd evidence --nights 365", secs(timed(w, ["evidence", "--nights", "365", "--out",
                                                     os.path.join(w.dir, "page365.md")], 3, last))),
        ("lvd pin --no-record", secs(timed(w, ["pin", "--pin-file", w.pin, "--candidate", "b9800",
                                               "--no-record"], 3, last))),
        ("lvd store runs --limit 10", ms(runs)),
    ]


def print_rows(rows):
    print("| command, full year | measured |")
    print("|---|---|")
    for k, v in rows:
        print("| %s | %s |" % (k, v))


def store_bytes(db):
    """The store's bytes: its file and WAL after a checkpoint that empties the WAL."""
    c = sqlite3.connect(db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    return sum(os.path.getsize(p) for p in (db, db + "-wal") if os.path.exists(p))


def store_split(db, samples):
    """Where the store's bytes go, B/sample per table with its indexes (SQLite's
    dbstat), largest first; "free" is the file's pages no table holds."""
    c = sqlite3.connect(db)
    owner = dict(c.execute("SELECT name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index')"))
    owner.update({"verdict_fingerprints": "verdicts", "sqlite_autoindex_verdict_fingerprints_1": "verdicts"})
    by = {}
    for name, size in c.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
        t = owner.get(name, name)
        by[t] = by.get(t, 0) + size
    total = c.execute("PRAGMA page_count").fetchone()[0] * c.execute("PRAGMA page_size").fetchone()[0]
    c.close()
    by["free"] = total - sum(by.values())
    top = sorted(by.items(), key=lambda kv: -kv[1])
    shown = [(k, v) for k, v in top if v / samples >= 0.05]
    rest = sum(v for k, v in top if v / samples < 0.05)
    parts = ["%s %.1f" % (k, v / samples) for k, v in shown] + (["the rest %.1f" % (rest / samples)] if rest else [])
    return ", ".join(parts)


def several_files(w, nights, now):
    """A user catching up on a week of one engine and model: seven nights'
    files (after the year) in one invocation; samples/s per file."""
    rnd = random.Random(7)
    paths, n_samples = [], 0
    for n in range(nights, nights + 7):
        for name, model, p, ns in night_files(w, n, rnd):
            if name == "b9700-cuda" and model == w.models[0]:
                paths.append(p)
                n_samples += ns
            else:
                os.unlink(p)
    t = time.monotonic()
    w.lvd(["store", "import"] + paths + ["--engine", "b9700-cuda", "--model", w.models[0],
                                         "--session", "week"], now=now)
    el = time.monotonic() - t
    for p in paths:
        os.unlink(p)
    return "%.0f samples/s (%d files, %.1f ms per file)" % (n_samples / el, len(paths), el / len(paths) * 1e3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nights", type=int, default=365)
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--fake", default="build/tests/fake-engine")
    ap.add_argument("--models", default="tests/fixtures/models")
    ap.add_argument("--dir")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--time", action="store_true")
    a = ap.parse_args()
    w = World(a)
    last = START + (a.nights - 1) * DAY + 7200
    if a.time:
        if not a.dir or not os.path.exists(w.db):
            die("--time needs --dir DIR holding a store this script built (with the same --nights)")
        small = World(a, os.path.join(w.dir, "small"))
        print_rows(reading_rows(w, last, small if os.path.exists(small.db) else None))
        return
    print("year-store: %d nights into %s" % (a.nights, w.db), file=sys.stderr)
    setup(w)
    t = time.monotonic()
    samples, imp_s, files, imp_cpu = fill(w, a.nights)
    fill_s = time.monotonic() - t
    small = None
    if a.nights > SMALL_NIGHTS:
        small = World(a, os.path.join(w.dir, "small"))
        setup(small)
        fill(small, SMALL_NIGHTS, a.nights - SMALL_NIGHTS)
    os.sync()  # the fill's writeback done before the timings, not during them
    rows = reading_rows(w, last, small)
    size = store_bytes(w.db)
    rows.append(("store size (file and WAL after a checkpoint)",
                 "%.1f MB, %.1f B/sample" % (size / 1e6, size / max(samples, 1))))
    rows.append(("where the store's bytes go, B/sample (each table with its indexes; verdicts with their fingerprints)",
                 store_split(w.db, max(samples, 1))))
    rows.append(("import, per file of a night (a night's 15 files in one invocation)",
                 "%.0f samples/s over %d files (%.1f ms per file; CPU %.1f ms per file)"
                 % (samples / imp_s, files, imp_s / files * 1e3, imp_cpu / files * 1e3)))
    # the import rows write a copy: the year store stays the year (--time re-times the same store)
    scratch = os.path.join(w.dir, "import-scratch.db")
    shutil.copyfile(w.db, scratch)
    year_db = w.env["LVD_STORE"]
    w.env["LVD_STORE"] = scratch
    rows.append(("import, a week of one engine's files in one `lvd store import F1 ... F7`",
                 several_files(w, a.nights, last)))
    # one big file: every night of one engine and model in one jsonl
    big = os.path.join(w.dir, "big.jsonl")
    rnd = random.Random(3)
    with open(big, "w") as f:
        for n in range(a.nights):
            for k, arm in enumerate(ENGINES["b9700-cpu"][2]):
                tt = START + n * DAY + 30000 + k * 2
                f.write(row("b9700-cpu", 9700, arm, os.path.basename(w.models[1]), 512, 0, tt, 400, rnd) + "\n")
                f.write(row("b9700-cpu", 9700, arm, os.path.basename(w.models[1]), 0, 128, tt + 1, 50, rnd) + "\n")
    big_samples = a.nights * len(ENGINES["b9700-cpu"][2]) * 2 * SAMPLES
    t = time.monotonic()
    w.lvd(["store", "import", big, "--engine", "b9700-cpu", "--model", w.models[1], "--session", "big"], now=last)
    first = time.monotonic() - t
    t = time.monotonic()
    w.lvd(["store", "import", big, "--engine", "b9700-cpu", "--model", w.models[1], "--session", "big"], now=last)
    again = time.monotonic() - t
    rows.append(("import, one big file", "%.0f samples/s (%d samples)" % (big_samples / first, big_samples)))
    rows.append(("re-importing the big file", "%.2f s (first import %.2f s)" % (again, first)))
    sq = big_sqlite(w, 35000)
    env = dict(w.env, LVD_FAKE_NOW=str(last))
    rss, code = child_rss_kib([os.path.join(w.bin, "lvd-store"), "import", sq, "--engine", "b9700-cpu",
                               "--model", w.models[2], "--select-build", "9700"], env)
    rows.append(("importing a 35 000-row llama-bench.sqlite", "%.0f MB RSS (exit %d)" % (rss / 1024, code)))
    w.env["LVD_STORE"] = year_db
    for p in (scratch, scratch + "-wal", scratch + "-shm", scratch + ".devices.lock"):
        if os.path.exists(p):
            os.unlink(p)
    print("\nyear store: %d nights, %d samples, filled in %.0f s\n" % (a.nights, samples, fill_s))
    print_rows(rows)
    if not a.keep and not a.dir:
        shutil.rmtree(w.dir)


if __name__ == "__main__":
    main()
