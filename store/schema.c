/* schema.c: the store's schema as an ordered list of forward migrations.
 * Migration N brings user_version from N-1 to N. Never edit a released step;
 * append a new one. Not for queries (see the store_*.c files). */
#include "store/schema.h"

#include "common/util.h"

#include <string.h>

static const char *const migrations[] = {
    /* 1: the first schema */
    "CREATE TABLE artifacts ("
    "  sha256 TEXT PRIMARY KEY CHECK (length(sha256) = 64),"
    "  size INTEGER NOT NULL,"          /* -1 when unknown (imported stub) */
    "  name TEXT,"                      /* general.name, informative */
    "  gguf_version INTEGER,"
    "  arch TEXT,"
    "  file_type INTEGER,"
    "  n_block INTEGER, n_embd INTEGER, n_head INTEGER, n_head_kv INTEGER,"
    "  head_dim_k INTEGER, head_dim_v INTEGER, n_ctx_train INTEGER,"
    "  n_expert INTEGER, n_expert_used INTEGER,"
    "  block_bytes INTEGER,"            /* bytes of one block, experts included */
    "  expert_bytes INTEGER,"           /* bytes of one block's expert tensors */
    "  non_block_bytes INTEGER,"        /* embeddings, output head, norms */
    "  tensor_bytes INTEGER,"
    "  n_tensors INTEGER, n_kv INTEGER, data_offset INTEGER,"
    "  shape_known INTEGER NOT NULL DEFAULT 0,"
    "  last_path TEXT,"                 /* most recently seen path, informative */
    "  created_at INTEGER NOT NULL"
    ");"
    "CREATE TABLE artifact_paths ("     /* hash cache: unchanged file, no re-hash */
    "  path TEXT PRIMARY KEY,"
    "  size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL,"
    "  sha256 TEXT NOT NULL REFERENCES artifacts(sha256) ON DELETE CASCADE,"
    "  hashed_at INTEGER NOT NULL"
    ");"
    "CREATE TABLE engines ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL UNIQUE,"
    "  dir TEXT NOT NULL UNIQUE,"
    "  build TEXT NOT NULL,"
    "  commit_id TEXT, flavour TEXT, digest TEXT,"
    "  origin TEXT NOT NULL CHECK (origin IN ('fetched','registered','imported')),"
    "  created_at INTEGER NOT NULL"
    ");"
    "CREATE TABLE probes ("
    "  id INTEGER PRIMARY KEY,"
    "  engine_id INTEGER NOT NULL REFERENCES engines(id) ON DELETE CASCADE,"
    "  binary TEXT NOT NULL,"
    "  bin_mtime_ns INTEGER NOT NULL, bin_size INTEGER NOT NULL,"
    "  probed_at INTEGER NOT NULL,"
    "  backend TEXT NOT NULL,"
    "  reason TEXT"
    ");"
    "CREATE INDEX probes_binary ON probes(binary, probed_at);"
    "CREATE TABLE devices ("
    "  probe_id INTEGER NOT NULL REFERENCES probes(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  selector TEXT NOT NULL, name TEXT NOT NULL,"
    "  total_mib INTEGER, free_mib INTEGER,"
    "  backend TEXT NOT NULL, compute_cap TEXT,"
    "  PRIMARY KEY (probe_id, idx)"
    ");"
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  artifact TEXT NOT NULL REFERENCES artifacts(sha256),"
    "  engine_id INTEGER NOT NULL REFERENCES engines(id),"
    "  binary TEXT NOT NULL, build TEXT NOT NULL, host TEXT NOT NULL,"
    "  session TEXT,"
    "  arm_key TEXT NOT NULL,"
    "  p_device TEXT, p_ngl INTEGER, p_fa INTEGER, p_ubatch INTEGER,"
    "  p_type_k TEXT, p_type_v TEXT, p_n_cpu_moe INTEGER, p_threads INTEGER, p_env TEXT,"
    "  build_commit TEXT, build_number INTEGER,"
    "  status TEXT NOT NULL CHECK (status IN ('ok','failed','gpu_ignored')),"
    "  reason TEXT, exit_code INTEGER, stderr_tail TEXT,"
    "  started_at INTEGER NOT NULL, wall_ms INTEGER,"
    "  source TEXT NOT NULL CHECK (source IN ('bench','import'))"
    ");"
    "CREATE INDEX runs_key ON runs(artifact, host, engine_id, arm_key);"
    "CREATE INDEX runs_session ON runs(session);"
    "CREATE INDEX runs_started ON runs(started_at);"
    "CREATE TABLE results ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  test TEXT NOT NULL,"
    "  n_prompt INTEGER, n_gen INTEGER, n_depth INTEGER,"
    "  backends TEXT,"
    "  rep_ngl INTEGER, rep_fa INTEGER, rep_ubatch INTEGER, rep_n_cpu_moe INTEGER,"
    "  rep_threads INTEGER, rep_type_k TEXT, rep_type_v TEXT,"
    "  reported_json TEXT"
    ");"
    "CREATE INDEX results_run ON results(run_id);"
    "CREATE TABLE samples ("
    "  result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL,"
    "  ns INTEGER, ts REAL NOT NULL,"
    "  warmup INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (result_id, idx)"
    ") WITHOUT ROWID;"
    "CREATE TABLE checks ("
    "  id INTEGER PRIMARY KEY,"
    "  artifact TEXT NOT NULL REFERENCES artifacts(sha256),"
    "  engine_id INTEGER NOT NULL REFERENCES engines(id),"
    "  device TEXT NOT NULL DEFAULT '',"
    "  host TEXT NOT NULL,"
    "  ran_at INTEGER NOT NULL,"
    "  status TEXT NOT NULL CHECK (status IN ('pass','fail','error','base')),"
    "  mean_kld REAL, same_top_p REAL, ppl REAL, ppl_base REAL, ppl_ratio REAL,"
    "  reason TEXT"
    ");"
    "CREATE INDEX checks_key ON checks(artifact, host, engine_id, device, ran_at);"
    "CREATE TABLE verdicts ("
    "  id INTEGER PRIMARY KEY,"
    "  artifact TEXT NOT NULL REFERENCES artifacts(sha256),"
    "  host TEXT NOT NULL,"
    "  decided_at INTEGER NOT NULL,"
    "  objective TEXT NOT NULL,"
    "  engine_id INTEGER REFERENCES engines(id),"
    "  arm_key TEXT,"
    "  p_device TEXT, p_ngl INTEGER, p_fa INTEGER, p_ubatch INTEGER,"
    "  p_type_k TEXT, p_type_v TEXT, p_n_cpu_moe INTEGER, p_threads INTEGER, p_env TEXT,"
    "  rule TEXT NOT NULL, explain TEXT, fingerprint TEXT, stats_json TEXT"
    ");"
    "CREATE INDEX verdicts_key ON verdicts(artifact, host, objective, decided_at);"
    "CREATE TABLE pin_decisions ("
    "  id INTEGER PRIMARY KEY,"
    "  decided_at INTEGER NOT NULL,"
    "  pinned_build TEXT NOT NULL,"
    "  candidate_build TEXT,"
    "  decision TEXT NOT NULL CHECK (decision IN ('keep','promote')),"
    "  rule TEXT NOT NULL,"
    "  details_json TEXT"
    ");"
    "CREATE TABLE pins ("
    "  id INTEGER PRIMARY KEY,"
    "  build TEXT NOT NULL, flavour TEXT, sha256 TEXT,"
    "  pinned_at INTEGER NOT NULL,"
    "  source TEXT"
    ");",
    /* 2: the shard cache of split models (NAME-00001-of-00003.gguf ...): each
     * shard file's own SHA-256 by (path, size, mtime, inode), and the artifact
     * (the split model's identity, store/identify.c) it was last part of */
    "CREATE TABLE shard_paths ("
    "  path TEXT PRIMARY KEY,"
    "  size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL,"
    "  sha256 TEXT NOT NULL CHECK (length(sha256) = 64),"
    "  artifact TEXT NOT NULL REFERENCES artifacts(sha256) ON DELETE CASCADE,"
    "  shard_no INTEGER NOT NULL,"      /* from 1, as in the file name */
    "  hashed_at INTEGER NOT NULL"
    ");",
    /* 3: the device-visibility environment a probe was made under and a check
     * carried (engine/visibility.h records; NULL: made before it was recorded) */
    "ALTER TABLE probes ADD COLUMN env TEXT;"
    "CREATE INDEX probes_engine_env ON probes(engine_id, env, probed_at);"
    "ALTER TABLE checks ADD COLUMN env TEXT NOT NULL DEFAULT '';",
    /* 4: an engine's identity is every file it loads (engine/files.h): the
     * probe records that file set, the backends the files carry, the note
     * for a backend that lists no device and the CUDA archs the build was
     * compiled for; the SHA-256 of each engine file is cached by (path,
     * size, mtime, inode) so a second registration re-hashes nothing. */
    "ALTER TABLE probes ADD COLUMN files TEXT;"         /* engine_files_key; NULL: not recorded */
    "ALTER TABLE probes ADD COLUMN backends TEXT;"      /* "cpu,vulkan" */
    "ALTER TABLE probes ADD COLUMN no_device TEXT;"     /* "Vulkan backend present, no Vulkan device ..." */
    "ALTER TABLE probes ADD COLUMN cuda_archs TEXT;"    /* "890,900" */
    "CREATE TABLE file_hashes ("
    "  path TEXT PRIMARY KEY,"
    "  size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL,"
    "  sha256 TEXT NOT NULL CHECK (length(sha256) = 64),"
    "  hashed_at INTEGER NOT NULL"
    ");",
    /* 5: placement, predicted next to actual: the token embeddings'
     * bytes (never offloaded), and per run and device what llama.cpp said it
     * allocated (engine/alloclog.h) beside what placement predicted for the
     * arm; bytes, NULL = not reported / not predicted. */
    "ALTER TABLE artifacts ADD COLUMN embd_bytes INTEGER;"
    "CREATE TABLE run_alloc ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  device TEXT NOT NULL,"           /* "Vulkan0", "CUDA0"; "CPU" = every host buffer */
    "  model INTEGER, kv INTEGER, compute INTEGER,"
    "  pred_model INTEGER, pred_kv INTEGER, pred_compute INTEGER,"
    "  PRIMARY KEY (run_id, device)"
    ");",
    /* 6: context ceilings found by
     * loading (fit/): per artifact, host, engine, device and KV cache types
     * the largest context that loaded and ran one token, at a placement
     * (its flags), with the engine's identity and free memory at the time.
     * ceiling 0: nothing loaded; capped 1: max_ctx loaded (the true
     * ceiling is higher); predicted, free_mib NULL: unknown. */
    "CREATE TABLE ceilings ("
    "  id INTEGER PRIMARY KEY,"
    "  artifact TEXT NOT NULL REFERENCES artifacts(sha256),"
    "  engine_id INTEGER NOT NULL REFERENCES engines(id) ON DELETE CASCADE,"
    "  engine_key TEXT NOT NULL,"       /* build and engine files when measured (fit_engine_key) */
    "  device TEXT NOT NULL,"           /* "CUDA0", "Vulkan0"; "CPU" for a CPU run */
    "  type_k TEXT NOT NULL, type_v TEXT NOT NULL,"
    "  placement TEXT NOT NULL,"        /* the flags it loaded with: "ngl=99 ncmoe=0 ub=512" */
    "  ceiling INTEGER NOT NULL, capped INTEGER NOT NULL DEFAULT 0, max_ctx INTEGER NOT NULL,"
    "  predicted INTEGER, free_mib INTEGER,"
    "  probes INTEGER NOT NULL,"
    "  host TEXT NOT NULL,"
    "  measured_at INTEGER NOT NULL"
    ");"
    "CREATE INDEX ceilings_key ON ceilings(artifact, host, engine_id, device, type_k, type_v, id);",
    /* 7 (several GPUs): the split of
     * a run or verdict over several devices, -sm and -ts as llama-bench
     * spells them ("row", "0.60/0.40"); '' = not passed. */
    "ALTER TABLE runs ADD COLUMN p_split_mode TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE runs ADD COLUMN p_tensor_split TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE verdicts ADD COLUMN p_split_mode TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE verdicts ADD COLUMN p_tensor_split TEXT NOT NULL DEFAULT '';",
    /* 8: regression hunting. A bisect
     * is keyed by what it hunts (host, model, flavour, test, arm, good, bad);
     * each midpoint measured or skipped is one step, recorded as it is
     * decided, so a rerun resumes; the facts that change under an unchanged
     * build (driver, kernel, governor ...) recorded per bench session. An
     * engine a hunt registered for a midpoint and whose bench dir it removed
     * is retired (not listed, not measured) until it is registered again. */
    "ALTER TABLE engines ADD COLUMN retired_at INTEGER;"
    "CREATE TABLE bisects ("
    "  id INTEGER PRIMARY KEY,"
    "  key TEXT NOT NULL UNIQUE,"
    "  host TEXT NOT NULL, artifact TEXT NOT NULL, flavour TEXT NOT NULL,"
    "  test TEXT NOT NULL, arm TEXT NOT NULL DEFAULT '',"
    "  good TEXT NOT NULL, bad TEXT NOT NULL,"
    "  started_at INTEGER NOT NULL, finished_at INTEGER,"
    "  last_good TEXT, first_bad TEXT,"   /* NULL until finished */
    "  result_json TEXT"                  /* lvd bisect --json's object */
    ");"
    "CREATE TABLE bisect_steps ("
    "  bisect_id INTEGER NOT NULL REFERENCES bisects(id) ON DELETE CASCADE,"
    "  build TEXT NOT NULL,"
    "  verdict TEXT NOT NULL CHECK (verdict IN ('good','bad','skip')),"
    "  reason TEXT NOT NULL,"
    "  commit_id TEXT, session TEXT,"
    "  vs_good REAL, vs_good_lo REAL, vs_good_hi REAL,"  /* midpoint / good, NULL: not measured */
    "  vs_bad REAL, vs_bad_lo REAL, vs_bad_hi REAL,"
    "  downloaded INTEGER NOT NULL DEFAULT 0,"
    "  at INTEGER NOT NULL,"
    "  PRIMARY KEY (bisect_id, build)"
    ");"
    "CREATE TABLE session_facts ("
    "  session TEXT NOT NULL, host TEXT NOT NULL,"
    "  name TEXT NOT NULL,"               /* "driver", "kernel", "governor" ... */
    "  value TEXT NOT NULL,"
    "  at INTEGER NOT NULL,"
    "  PRIMARY KEY (session, name)"
    ");"
    "CREATE INDEX session_facts_host ON session_facts(host, at);",
    /* 9: llama.cpp's own fit as a rival arm.
     * The arm's -fitt / -fitc on runs and verdicts (NULL / 0 = not passed), and
     * the plan llama.cpp's fit chose (llama-fit-params) beside ours for the
     * same free memory, per session and device. */
    "ALTER TABLE runs ADD COLUMN p_fit_target INTEGER;"
    "ALTER TABLE runs ADD COLUMN p_fit_ctx INTEGER;"
    "ALTER TABLE verdicts ADD COLUMN p_fit_target INTEGER;"
    "ALTER TABLE verdicts ADD COLUMN p_fit_ctx INTEGER;"
    "CREATE TABLE fit_plans ("
    "  id INTEGER PRIMARY KEY,"
    "  artifact TEXT NOT NULL, engine_id INTEGER NOT NULL, host TEXT, session TEXT,"
    "  device TEXT NOT NULL, free_mib INTEGER, fit_target INTEGER, fit_ctx INTEGER,"
    "  ctx INTEGER, ngl INTEGER,"           /* what llama.cpp chose: -c, -ngl */
    "  overrides TEXT,"                     /* its -ot list, verbatim ("" none) */
    "  host_blocks INTEGER,"                /* blocks whose experts -ot puts on the host */
    "  ours TEXT,"                          /* our placement's flags for the same device */
    "  created_at INTEGER NOT NULL"
    ");",
    /* 10: which llama-bench process a bench
     * run came from: the id of that process's first run (NULL: imported, or
     * recorded before), so a shared process's runs are priced as one
     * (store/prices.h) */
    "ALTER TABLE runs ADD COLUMN invocation INTEGER; CREATE INDEX runs_invocation ON runs(invocation);",
    /* 11: the energy of each
     * result's timed repetitions (energy/watch.h): the sources and devices
     * metered, gross joules over the window, its seconds, the idle baseline
     * (NULL: not measured); a result without a row was not measured, and
     * note says why when it was tried. */
    "CREATE TABLE result_energy ("
    "  result_id INTEGER PRIMARY KEY REFERENCES results(id) ON DELETE CASCADE,"
    "  source TEXT NOT NULL,"           /* "nvml+rapl" */
    "  device TEXT NOT NULL,"           /* "CUDA0=00000000:17:00.0+package-0" */
    "  joules REAL, window_s REAL, idle_watts REAL,"
    "  note TEXT NOT NULL DEFAULT ''"
    ");",
    /* 12: nothing stored twice. A result's reported object loses
     * its samples_ns / samples_ts arrays: they are its samples (one row each
     * in samples); new results are stored without them (benchio/benchout.c).
     * Only valid JSON is touched, so a hand-made row never fails the step. */
    "UPDATE results SET reported_json = json_remove(reported_json, '$.samples_ns', '$.samples_ts') WHERE reported_json LIKE '%\"samples_%' AND json_valid(reported_json);",
    /* 13: the
     * fleet's per-host reads (hosts of a store, one host's runs for the
     * evidence page and pin --fleet) without scanning every run */
    "CREATE INDEX runs_host ON runs(host, started_at);",
    /* 14:
     * every reading command's cost bounded by what it shows. On a host:
     * runs_arm, an arm's runs by time (each arm's newest session, one seek:
     * store_newest.c); runs_time, a model's runs by time (its newest run, a
     * night window); runs_night, a session's runs (an arm's newest session
     * read, not its year); the host's runs by time (its night window over every model) is
     * runs_host, of step 13. verdicts_newest: a model's newest verdict
     * whatever its objective. run_alloc_device: a device's newest allocation
     * rows (the margin correction's window); the pin decisions between two
     * builds, and by time (a night window). runs_key goes: runs_arm serves
     * what it did (the same columns, host first), and each index costs
     * bytes per run. */
    "CREATE INDEX runs_arm ON runs(host, artifact, engine_id, arm_key, started_at);"
    "CREATE INDEX runs_time ON runs(host, artifact, started_at);"
    "CREATE INDEX runs_night ON runs(host, session, started_at);"
    "CREATE INDEX verdicts_newest ON verdicts(artifact, host, decided_at);"
    "DROP INDEX runs_key;"
    "CREATE INDEX run_alloc_device ON run_alloc(device, run_id);"
    "CREATE INDEX pin_decisions_builds ON pin_decisions(pinned_build, candidate_build, decided_at);"
    "CREATE INDEX pin_decisions_at ON pin_decisions(decided_at);",
    /* 15: packed samples. A result's samples are one TEXT column
     * in its row (the format: store/store_samples.h) with their count, in
     * place of a samples row per repetition (about 24 bytes each, its index
     * and result id repeated). The conversion of an old store is SQLite's
     * (group_concat, printf), in the samples' idx order; it writes each NS
     * absolute ('=') and each t/s in 6, 9 or 12 digits when those read back
     * as the same double, else 20 (SQLite's printf is not correctly rounded
     * at 17; its 20 digits read back exactly).
     * Nothing stored twice: a result's reported object is split before its
     * first test field (`,"n_prompt":`); that head (what llama-bench ran
     * with: build, devices, model, parameters) is kept once in
     * reported_heads, the result keeps its tail and the head's id
     * (store/store_reported.h). Old rows are split by SQLite's instr.
     * A store created at this version (PostgreSQL's base schema) has no
     * samples table or whole objects to convert. */
    "ALTER TABLE results ADD COLUMN n_samples BIGINT NOT NULL DEFAULT 0;"
    "ALTER TABLE results ADD COLUMN samples TEXT NOT NULL DEFAULT '';"
    "UPDATE results SET n_samples = (SELECT count(*) FROM samples WHERE result_id = results.id),"
    " samples = COALESCE((SELECT group_concat(t, ' ') FROM (SELECT CASE WHEN warmup <> 0 THEN '*' ELSE '' END"
    " || CASE WHEN ns IS NULL THEN '' ELSE '=' || ns END || ':' || CASE"
    " WHEN CAST(printf('%!.6g', ts) AS REAL) = ts THEN printf('%!.6g', ts)"
    " WHEN CAST(printf('%!.9g', ts) AS REAL) = ts THEN printf('%!.9g', ts)"
    " WHEN CAST(printf('%!.12g', ts) AS REAL) = ts THEN printf('%!.12g', ts)"
    " ELSE printf('%!.20g', ts) END AS t"
    " FROM samples WHERE result_id = results.id ORDER BY idx)), '')"
    " WHERE id IN (SELECT result_id FROM samples);"
    "DROP TABLE samples;"
    "CREATE TABLE reported_heads (id INTEGER PRIMARY KEY, head TEXT NOT NULL UNIQUE);"
    "ALTER TABLE results ADD COLUMN reported_head BIGINT REFERENCES reported_heads(id);"
    "INSERT INTO reported_heads (head) SELECT DISTINCT substr(reported_json, 1, instr(reported_json, ',\"n_prompt\":') - 1)"
    " FROM results WHERE instr(reported_json, ',\"n_prompt\":') > 1;"
    "UPDATE results SET reported_head = (SELECT h.id FROM reported_heads h"
    " WHERE h.head = substr(results.reported_json, 1, instr(results.reported_json, ',\"n_prompt\":') - 1)),"
    " reported_json = substr(reported_json, instr(reported_json, ',\"n_prompt\":'))"
    " WHERE instr(reported_json, ',\"n_prompt\":') > 1;",
    /* 16 (stores that merge): identities unique across boxes. A
     * run's uid is 128 random bits as hex (common/uid.h), given to every
     * old run here, so `lvd store merge` matches runs by it; engines are
     * known per host (two boxes both have /opt/llama.cpp/b9749-cuda):
     * UNIQUE (host, name) and (host, dir) replace name's and dir's own. An
     * old engine's host is the host most of its runs have, else this
     * machine's ({HOST}, replaced by store_schema_sql). SQLite cannot drop
     * a UNIQUE constraint: the table is rebuilt, with foreign keys off
     * (store_schema_fk_off), or DROP TABLE would cascade to probes. */
    "CREATE TABLE engines_new ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  dir TEXT NOT NULL,"
    "  build TEXT NOT NULL,"
    "  commit_id TEXT, flavour TEXT, digest TEXT,"
    "  origin TEXT NOT NULL CHECK (origin IN ('fetched','registered','imported')),"
    "  created_at BIGINT NOT NULL,"
    "  retired_at BIGINT,"
    "  host TEXT NOT NULL,"           /* last: where PostgreSQL's ADD COLUMN puts it */
    "  UNIQUE (host, name), UNIQUE (host, dir)"
    ");"
    "INSERT INTO engines_new (id, name, dir, build, commit_id, flavour, digest, origin, created_at,"
    " retired_at, host) SELECT e.id, e.name, e.dir, e.build, e.commit_id, e.flavour, e.digest, e.origin,"
    " e.created_at, e.retired_at, COALESCE((SELECT r.host FROM runs r WHERE r.engine_id = e.id GROUP BY r.host"
    " ORDER BY count(*) DESC, r.host LIMIT 1), '{HOST}') FROM engines e;"
    "DROP TABLE engines;"
    "ALTER TABLE engines_new RENAME TO engines;"
    "ALTER TABLE runs ADD COLUMN uid TEXT;"
    "UPDATE runs SET uid = lower(hex(randomblob(16)));"
    "CREATE UNIQUE INDEX runs_uid ON runs(uid);",
    /* 17 (the store's size): nothing stored twice (store_docs.h).
     * A verdict's fingerprint, the same in every verdict until an engine
     * changes, moves to verdict_fingerprints, once per text, and verdicts
     * name it by fingerprint_id; the large documents (a verdict's
     * statistics, a pin decision's details) are packed with zlib by
     * lvd_pack_doc, a function store_sqlite.c gives the connection that
     * migrates (PostgreSQL's step, pg_steps, keeps them as text: TOAST
     * compresses them). A result's reported tail loses its test sizes
     * where they are the result's columns as printed (store_reported.h). */
    "CREATE TABLE verdict_fingerprints (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE);"
    "INSERT INTO verdict_fingerprints (fingerprint) SELECT DISTINCT fingerprint FROM verdicts"
    " WHERE fingerprint IS NOT NULL;"
    "ALTER TABLE verdicts ADD COLUMN fingerprint_id BIGINT REFERENCES verdict_fingerprints(id);"
    "UPDATE verdicts SET fingerprint_id = (SELECT f.id FROM verdict_fingerprints f"
    " WHERE f.fingerprint = verdicts.fingerprint) WHERE fingerprint IS NOT NULL;"
    "ALTER TABLE verdicts DROP COLUMN fingerprint;"
    "UPDATE verdicts SET stats_json = lvd_pack_doc(stats_json) WHERE length(stats_json) >= 256;"
    "UPDATE pin_decisions SET details_json = lvd_pack_doc(details_json) WHERE length(details_json) >= 256;"
    STORE_SCHEMA_17_TAILS,
    /* 18 (a warm lvd select): a verdict keeps the depth its tests
     * were measured at (llama-bench -d), the context its launch line serves,
     * so lvd select need not read the winning arm's newest session again.
     * NULL: a verdict recorded before it (select reads the session then). */
    "ALTER TABLE verdicts ADD COLUMN serving_depth INTEGER;",
    /* 19 (flags a build lists): a probe keeps the option lines of its
     * engine's tools' --help that llama-verdict may pass (engine/help.h), so
     * no tool passes a flag the build does not have; a run keeps the note
     * of the flags its invocation left out for that reason (engine/argv.h).
     * NULL: not read (a probe made before step 19), nothing left out. */
    "ALTER TABLE probes ADD COLUMN flags TEXT; ALTER TABLE runs ADD COLUMN left_out TEXT;",
    /* 20: serving under load (lvd serve, serve/): a run of llama-server at
     * --parallel N driven by N concurrent clients is a run like llama-bench's,
     * its load shape N in p_parallel (0: a llama-bench run) and P, G in its
     * results' n_prompt and n_gen; a verdict of the serve objective keeps the
     * slots its winner was measured with. runs_serving finds a model's
     * newest serving run without walking its llama-bench runs. */
    "ALTER TABLE runs ADD COLUMN p_parallel INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE verdicts ADD COLUMN p_parallel INTEGER NOT NULL DEFAULT 0;"
    "CREATE INDEX runs_serving ON runs(host, artifact, started_at) WHERE p_parallel > 0;",
    /* 21 (every llama.cpp a user has): since its SemVer releases (Aug 2026)
     * llama.cpp's --version says "version: 0.4.1-dev (build 10991, commit
     * 930e2fa59)": the version is kept beside the build (semver; NULL before
     * them), and an engine fetched by a SemVer release's name keeps that name
     * (release_tag, "v0.4.1"), so that a pin file naming the release finds
     * the build it stands for. */
    "ALTER TABLE engines ADD COLUMN semver TEXT; ALTER TABLE engines ADD COLUMN release_tag TEXT;",
    /* 22 (memory asked of llama.cpp): what llama-fit-params --fit-print
     * printed for a model on an engine at one setting (engine/fitprint.h),
     * in MiB per device row and for the host, with the engine's files when
     * it ran (engine_files_key): a cache that a changed engine invalidates,
     * read by lvd select without spawning anything. One row per (engine,
     * artifact, setting, host): a newer run replaces it. */
    "CREATE TABLE fit_prints ("
    "  engine_id INTEGER NOT NULL REFERENCES engines(id) ON DELETE CASCADE,"
    "  artifact TEXT NOT NULL,"
    "  host TEXT NOT NULL,"
    "  ctx INTEGER NOT NULL, ubatch INTEGER NOT NULL, fa INTEGER NOT NULL,"
    "  type_k TEXT NOT NULL, type_v TEXT NOT NULL,"
    "  device TEXT NOT NULL,"               /* the device row's name; '' host only */
    "  dev_model INTEGER, dev_context INTEGER, dev_compute INTEGER,"
    "  host_model INTEGER NOT NULL, host_context INTEGER NOT NULL, host_compute INTEGER NOT NULL,"
    "  files TEXT,"                         /* engine_files_key when it ran */
    "  created_at INTEGER NOT NULL,"
    "  PRIMARY KEY (engine_id, artifact, host, ctx, ubatch, fa, type_k, type_v, device)"
    ");",
    /* 23 (engines of the llama.cpp family): which line of llama.cpp an engine
     * is (engine/family.h: "llama.cpp", "ik_llama.cpp", "unknown"), told
     * from its own words at registration; build numbers are compared only
     * within one. Engines registered before are mainline's. */
    "ALTER TABLE engines ADD COLUMN family TEXT NOT NULL DEFAULT 'llama.cpp';",
    /* 24 (ik_llama.cpp's knobs): a run and a verdict keep the fused MoE
     * (-fmoe) and run-time repacking (-rtr) their arm asked, 0 or 1; NULL
     * not passed (every run and verdict before them). */
    "ALTER TABLE runs ADD COLUMN p_fused_moe INTEGER; ALTER TABLE runs ADD COLUMN p_repack INTEGER;"
    " ALTER TABLE verdicts ADD COLUMN p_fused_moe INTEGER;"
    " ALTER TABLE verdicts ADD COLUMN p_repack INTEGER;",
};

size_t store_schema_version(void)
{
    return sizeof migrations / sizeof migrations[0];
}

const char *store_schema_step(size_t to_version)
{
    if (to_version < 1 || to_version > store_schema_version())
        return NULL;
    return migrations[to_version - 1];
}

int store_schema_fk_off(size_t to_version)
{
    return to_version == 16;
}

char *store_schema_fill(const char *step)
{
    lvd_sb sb = {0};
    const char *at;
    while ((at = strstr(step, "{HOST}")) != NULL) {
        lvd_sb_add(&sb, step, (size_t)(at - step));
        for (const char *h = lvd_hostname(); *h; h++)
            lvd_sb_add(&sb, *h == '\'' ? "''" : h, *h == '\'' ? 2 : 1);
        step = at + strlen("{HOST}");
    }
    lvd_sb_adds(&sb, step);
    return lvd_sb_detach(&sb);
}

char *store_schema_sql(size_t to_version)
{
    const char *step = store_schema_step(to_version);
    return step ? store_schema_fill(step) : NULL;
}
