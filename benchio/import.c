/* import.c: llama-bench output files into the store as runs (see import.h).
 * Not for parsing (benchio/benchout.c) or for arm keys (benchio/arm.c). */
#include "benchio/import.h"

#include "benchio/arm.h"
#include "benchio/importsel.h"
#include "common/sha256.h"
#include "store/backenddb.h"
#include "store/benchdb.h"
#include "store/identify.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IMPORT_MAX_BYTES ((size_t)256 << 20)

static int fail(benchio_import_report *rep, benchio_import_fail kind)
{
    rep->fail = kind;
    return -1;
}

static const char *str_or(const char *s, const char *dflt)
{
    return s ? s : dflt;
}

/* An absolute form of dir: resolved when it exists here, else made absolute
 * (an imported engine may live on the machine the file came from). */
static char *absolute_dir(const char *dir)
{
    char buf[PATH_MAX];
    if (realpath(dir, buf))
        return lvd_xstrdup(buf);
    if (dir[0] == '/' || !getcwd(buf, sizeof buf))
        return lvd_xstrdup(dir);
    return lvd_xasprintf("%s/%s", buf, dir);
}

/* What the checks keep of a file's selected rows while it is read (a
 * database is read twice and never held whole): the first selected row, the
 * backends counted, the first row without a test time. */
typedef struct import_check {
    benchio_rows first;       /* v[0]: the first selected row (all of them for a text file) */
    size_t selected;
    size_t no_time;         /* 1-based index of the first selected row without test_time; 0: none */
    char no_time_test[64];
    benchio_seen_backends backends;
} import_check;

/* Rows a and b come from one model and one build: the user names one of each. */
static int check_same_model_and_build(const benchio_row *a, const benchio_row *b, const char *name, lvd_err *err)
{
    if (strcmp(str_or(a->model_filename, ""), str_or(b->model_filename, "")))
        return lvd_errf(err, "%s: results for more than one model (%s, %s); pick one with --select-model",
                        name, str_or(a->model_filename, "?"), str_or(b->model_filename, "?"));
    if (a->build_number != b->build_number || strcmp(str_or(a->build_commit, ""), str_or(b->build_commit, "")))
        return lvd_errf(err, "%s: results of more than one build (%s %lld, %s %lld); pick one with --select-build",
                        name, str_or(a->build_commit, "?"), (long long)a->build_number,
                        str_or(b->build_commit, "?"), (long long)b->build_number);
    return 0;
}

/* Counts the selected row r into c and checks it against the first. */
static int check_row(import_check *c, const benchio_row *r, const char *name, lvd_err *err)
{
    c->selected++;
    benchio_seen_add(&c->backends, r);
    if (r->test_epoch == 0 && !c->no_time) {
        c->no_time = c->selected;
        snprintf(c->no_time_test, sizeof c->no_time_test, "%s", r->result.test);
    }
    return c->selected > 1 ? check_same_model_and_build(&c->first.v[0], r, name, err) : 0;
}

/* What every selected row was checked for, once all are counted. */
static int check_rows_done(const import_check *c, const char *name, lvd_err *err)
{
    if (c->no_time)
        return lvd_errf(err, "%s: result %zu (%s) has no readable test_time; it cannot be keyed", name, c->no_time,
                        c->no_time_test);
    return 0;
}

typedef struct db_reader {
    const benchio_import_opts *o;
    benchio_rows *rows;       /* the rows parsed and kept */
    size_t cap, seen;
    size_t selected;
    size_t other_backend;   /* rows --select-backend dropped */
    import_check *check;    /* the first reading: checks, keeps only the first row */
    store *s;               /* the second: imports in batches */
    const lvd_engine *e;
    benchio_import_report *rep;
    lvd_err *err;
} db_reader;

static int import_rows(store *s, benchio_rows *rows, const lvd_engine *e, const benchio_import_opts *o, int last,
                       benchio_import_report *rep, lvd_err *err);

/* Selected rows the second reading holds before it records the runs they make. */
#define IMPORT_BATCH 512

/* One row of a llama-bench database: parsed, and kept only while needed:
 * on the first reading checked (only the first selected row kept), on the
 * second held in a batch until its runs are recorded. */
static int db_row(const cJSON *row, size_t i, void *ctx)
{
    db_reader *r = ctx;
    char where[32];
    snprintf(where, sizeof where, "row %zu", i + 1);
    r->seen = i + 1;
    if (benchio_rows_add_object(r->rows, &r->cap, row, r->o->file, where, r->err))
        return -1;
    int other;
    benchio_row *last = &r->rows->v[r->rows->n - 1];
    if (!benchio_import_row_selected(last, r->o, &other)) {
        benchio_row_free(&r->rows->v[--r->rows->n]);
        r->other_backend += (size_t)other;
        return 0;
    }
    r->selected++;
    if (r->check) {
        int rc = check_row(r->check, last, r->o->file, r->err);
        if (r->rows->n > 1)
            benchio_row_free(&r->rows->v[--r->rows->n]);
        return rc ? fail(r->rep, BENCHIO_IMPORT_INPUT) : 0;
    }
    return r->rows->n >= IMPORT_BATCH ? import_rows(r->s, r->rows, r->e, r->o, 0, r->rep, r->err) : 0;
}

/* Reads and parses the file and checks its selected rows: llama-bench text
 * output (its selected rows kept in c->first), or an SQLite database of it
 * (streamed: only the first selected row kept); *had is how many results
 * the file held. */
static int read_rows(const benchio_import_opts *o, import_check *c, size_t *had, benchio_import_report *rep,
                     lvd_err *err)
{
    char head[16] = {0};
    FILE *f = fopen(o->file, "rb");
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    memset(c, 0, sizeof *c);
    benchio_rows *rows = &c->first;
    if (!store_is_sqlite_file(head, got)) {
        lvd_sb text = {0};
        if (lvd_read_file(o->file, IMPORT_MAX_BYTES, &text, err))
            return fail(rep, BENCHIO_IMPORT_INPUT);
        int rc = benchio_parse_rows(text.buf, text.len, o->format, o->file, rows, err);
        lvd_sb_free(&text);
        *had = rows->n;
        rep->lines_skipped = rows->lines_skipped;
        snprintf(rep->first_skipped, sizeof rep->first_skipped, "%s", rows->first_skipped);
        if (rc || benchio_import_select_rows(rows, o, *had, &rep->rows_other_backend, err))
            return fail(rep, BENCHIO_IMPORT_INPUT);
        for (size_t i = 0; i < rows->n; i++)
            if (check_row(c, &rows->v[i], o->file, err))
                return fail(rep, BENCHIO_IMPORT_INPUT);
        return check_rows_done(c, o->file, err) ? fail(rep, BENCHIO_IMPORT_INPUT) : 0;
    }
    rep->sqlite_db = 1;
    db_reader r = {.o = o, .rows = rows, .check = c, .rep = rep, .err = err};
    int rc = store_llama_bench_db_each(o->file, db_row, &r, err);
    rows->format = BENCHIO_FMT_SQL;
    *had = r.seen;
    rep->rows_other_backend = r.other_backend;
    if (rc)
        return fail(rep, BENCHIO_IMPORT_INPUT);
    if (r.seen == 0) {
        lvd_errf(err, "%s: the database's llama-bench table (llama_bench, or test before b6066) has no row", o->file);
        return fail(rep, BENCHIO_IMPORT_INPUT);
    }
    size_t none = 0; /* the "none selected" rule, on what is left of the rows */
    if (benchio_import_select_rows(rows, o, *had, &none, err) || check_rows_done(c, o->file, err))
        return fail(rep, BENCHIO_IMPORT_INPUT);
    return 0;
}

/* The second reading of a database, in the write transaction: its selected
 * rows recorded as runs a batch at a time. */
static int import_db(store *s, const lvd_engine *e, const benchio_import_opts *o, const import_check *c,
                     benchio_import_report *rep, lvd_err *err)
{
    benchio_rows batch = {0};
    db_reader r = {.o = o, .rows = &batch, .s = s, .e = e, .rep = rep, .err = err};
    int rc = store_llama_bench_db_each(o->file, db_row, &r, err);
    if (rc == 0 && r.selected != c->selected)
        rc = lvd_errf(err, "%s: the database changed while it was imported (%zu results selected, then %zu)",
                      o->file, c->selected, r.selected);
    if (rc == 0)
        rc = import_rows(s, &batch, e, o, 1, rep, err);
    else if (!rep->fail)
        fail(rep, BENCHIO_IMPORT_INPUT);
    benchio_rows_free(&batch);
    return rc;
}

/* A build id of the form bNNNN names a release; llama-bench reports NNNN.
 * Local builds (build_number 0, or any other id) cannot be cross-checked. */
static int check_build_matches(const lvd_engine *e, const benchio_row *row, const char *name, lvd_err *err)
{
    int64_t n;
    if (row->build_number <= 0 || e->build[0] != 'b' || lvd_parse_i64(e->build + 1, &n) != 0)
        return 0;
    if (n != row->build_number)
        return lvd_errf(err, "%s: llama-bench reports build b%lld (%s), but engine '%s' is build %s",
                        name, (long long)row->build_number, str_or(row->build_commit, "?"), e->name, e->build);
    return 0;
}

/* The rows ran on one backend, the engine's (benchio_seen_check). */
static int check_backend(store *s, const benchio_seen_backends *seen, const lvd_engine *e, const benchio_import_opts *o,
                         benchio_import_report *rep, lvd_err *err)
{
    char had[64];
    int rc = store_engine_reported_backends(s, e->id, had, sizeof had, err);
    if (rc < 0)
        return fail(rep, BENCHIO_IMPORT_STORE);
    if (benchio_seen_check(seen, o->file, e->name, rc == 0 ? had : NULL, err))
        return fail(rep, BENCHIO_IMPORT_INPUT);
    return 0;
}

/* Finds the engine the user named, or registers --engine-dir. */
static int resolve_engine(store *s, const benchio_import_opts *o, const benchio_row *first, lvd_engine *out,
                          benchio_import_report *rep, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (!o->engine_dir) {
        int rc = store_engine_by_name(s, o->engine, out, err);
        if (rc < 0)
            return fail(rep, BENCHIO_IMPORT_STORE);
        if (rc == 1) {
            lvd_errf(err, "%s: no engine named '%s' in the store; register the directory with "
                     "--engine-dir DIR --build ID", store_path(s), o->engine);
            return fail(rep, BENCHIO_IMPORT_USAGE);
        }
        return 0;
    }
    char *dir = absolute_dir(o->engine_dir);
    const char *name = o->engine ? o->engine : o->build;
    lvd_engine *all;
    size_t n;
    if (store_engine_list(s, &all, &n, err)) {
        free(dir);
        return fail(rep, BENCHIO_IMPORT_STORE);
    }
    int ret = 0;
    const lvd_engine *by_dir = NULL, *by_name = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(all[i].dir, dir))
            by_dir = &all[i];
        if (!strcmp(all[i].name, name))
            by_name = &all[i];
    }
    if (by_dir && strcmp(by_dir->build, o->build)) {
        lvd_errf(err, "%s is registered as engine '%s' with build %s, not %s", dir, by_dir->name, by_dir->build, o->build);
        ret = fail(rep, BENCHIO_IMPORT_USAGE);
    } else if (by_dir && o->engine && strcmp(by_dir->name, o->engine)) {
        lvd_errf(err, "%s is registered as engine '%s'; use --engine %s", dir, by_dir->name, by_dir->name);
        ret = fail(rep, BENCHIO_IMPORT_USAGE);
    } else if (by_dir) {
        if (store_engine_get(s, by_dir->id, out, err) != 0)
            ret = fail(rep, BENCHIO_IMPORT_STORE);
    } else if (by_name) {
        lvd_errf(err, "engine '%s' already exists with directory %s; give this one another --engine name",
                 name, by_name->dir);
        ret = fail(rep, BENCHIO_IMPORT_USAGE);
    } else {
        const char *commit = first->build_commit && strcmp(first->build_commit, "unknown") ? first->build_commit : NULL;
        lvd_engine e = {.name = (char *)name, .dir = dir, .build = (char *)o->build, .commit = (char *)commit,
                        .origin = "imported"};
        if (store_engine_put(s, &e, err) || store_engine_get(s, e.id, out, err) != 0)
            ret = fail(rep, BENCHIO_IMPORT_STORE);
        else
            rep->engine_registered = 1;
    }
    store_engine_list_free(all, n);
    free(dir);
    return ret;
}

/* Records the --artifact stub unless the artifact is already known. */
static int resolve_artifact_stub(store *s, const char *sha, benchio_import_report *rep, lvd_err *err)
{
    store_artifact a;
    int rc = store_artifact_get(s, sha, &a, err);
    if (rc < 0)
        return fail(rep, BENCHIO_IMPORT_STORE);
    if (rc == 0) {
        store_artifact_free(&a);
        return 0;
    }
    store_artifact stub = {.size = -1};
    snprintf(stub.sha256, sizeof stub.sha256, "%s", sha);
    if (store_artifact_put(s, &stub, err))
        return fail(rep, BENCHIO_IMPORT_STORE);
    return 0;
}

/* llama-bench's model_size is the model's tensor bytes: a file whose shape
 * is known must agree, or the results belong to another model. */
static int check_model_size(store *s, const benchio_import_opts *o, const benchio_row *row, const char *sha,
                            benchio_import_report *rep, lvd_err *err)
{
    store_artifact a;
    int rc = store_artifact_get(s, sha, &a, err);
    if (rc < 0)
        return fail(rep, BENCHIO_IMPORT_STORE);
    if (rc == 1)
        return 0;
    int bad = a.shape.known && row->model_size >= 0 && (uint64_t)row->model_size != a.shape.tensor_bytes;
    if (bad)
        lvd_errf(err, "%s: llama-bench measured %s with %lld bytes of tensors, but artifact %.12s (%s) has %llu; "
                 "wrong --model or --artifact?", o->file, str_or(row->model_filename, "a model"),
                 (long long)row->model_size, sha, a.last_path ? a.last_path : "path unknown",
                 (unsigned long long)a.shape.tensor_bytes);
    store_artifact_free(&a);
    return bad ? fail(rep, BENCHIO_IMPORT_INPUT) : 0;
}

/* A run for the rows [from, to) of one parameter set; moves their results. */
static void build_run(benchio_rows *rows, size_t from, size_t to, const lvd_params *p, const char *key,
                      const lvd_engine *e, const char *artifact, const benchio_import_opts *o, lvd_run *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->artifact, sizeof r->artifact, "%s", artifact);
    r->engine_id = e->id;
    r->binary = lvd_xasprintf("%s/llama-bench", e->dir);
    r->build = lvd_xstrdup(e->build);
    r->host = lvd_xstrdup(o->host ? o->host : lvd_hostname());
    r->session = o->session ? lvd_xstrdup(o->session) : lvd_xasprintf("import:%s", lvd_base_name(o->file));
    r->params = *p;
    r->arm_key = lvd_xstrdup(key);
    const benchio_row *first = &rows->v[from];
    r->build_commit = first->build_commit ? lvd_xstrdup(first->build_commit) : NULL;
    r->build_number = first->build_number;
    strcpy(r->status, "ok");
    strcpy(r->source, "import");
    r->exit_code = 0;
    r->started_at = first->test_epoch;
    r->results = lvd_xcalloc(to - from, sizeof *r->results);
    for (size_t i = from; i < to; i++) {
        lvd_result *x = &rows->v[i].result;
        if (rows->v[i].test_epoch < r->started_at)
            r->started_at = rows->v[i].test_epoch;
        if (benchio_result_gpu_ignored(x) && strcmp(r->status, "gpu_ignored")) {
            strcpy(r->status, "gpu_ignored");
            r->reason = lvd_xasprintf("llama-bench reported backends %s with n_gpu_layers %d: the build ignored -ngl",
                                      x->backends, x->rep_ngl);
        }
        r->results[r->n_results] = *x;
        memset(x, 0, sizeof *x);
        benchio_result_flag_warmup(&r->results[r->n_results++]);
    }
}

static int params_of(const benchio_row *row, const benchio_import_opts *o, lvd_params *p, char *key, size_t len,
                     lvd_err *err)
{
    benchio_params_from_result(&row->result, p);
    if (o->env)
        snprintf(p->env, sizeof p->env, "%s", o->env);
    if (benchio_arm_key(p, key, len))
        return lvd_errf(err, "%s: the parameters of %s do not fit an arm key", o->file, row->result.test);
    return 0;
}

/* Groups the rows into runs and records the new ones, and drops the rows
 * recorded; unless last, the final group is kept (more of its rows may
 * follow) at the start of rows. */
static int import_rows(store *s, benchio_rows *rows, const lvd_engine *e, const benchio_import_opts *o, int last,
                       benchio_import_report *rep, lvd_err *err)
{
    size_t from = 0;
    while (from < rows->n) {
        lvd_params p;
        char key[512];
        if (params_of(&rows->v[from], o, &p, key, sizeof key, err))
            return fail(rep, BENCHIO_IMPORT_INPUT);
        size_t to = from + 1;
        for (; to < rows->n; to++) {
            lvd_params q;
            char k2[512];
            if (params_of(&rows->v[to], o, &q, k2, sizeof k2, err))
                return fail(rep, BENCHIO_IMPORT_INPUT);
            int repeated = 0;
            for (size_t i = from; i < to; i++)
                repeated |= !strcmp(rows->v[i].result.test, rows->v[to].result.test);
            if (strcmp(key, k2) || repeated)
                break;
        }
        if (!last && to == rows->n)
            break;
        lvd_run r;
        build_run(rows, from, to, &p, key, e, rep->artifact, o, &r);
        char *had = NULL;
        int dup = store_run_imported(s, &r, &had, err);
        if (dup < 0) {
            lvd_run_free(&r);
            return fail(rep, BENCHIO_IMPORT_STORE);
        }
        if (dup) {
            rep->runs_skipped++;
            if (!rep->skipped_session[0] && strcmp(had, r.session))
                snprintf(rep->skipped_session, sizeof rep->skipped_session, "%s", had);
            free(had);
        } else {
            if (store_run_put(s, &r, err)) {
                lvd_run_free(&r);
                return fail(rep, BENCHIO_IMPORT_STORE);
            }
            rep->runs_added++;
            rep->results_added += r.n_results;
            for (size_t i = 0; i < r.n_results; i++) {
                rep->samples_added += r.results[i].n;
                for (size_t k = 0; k < r.results[i].n; k++)
                    rep->warmup_flagged += r.results[i].warmup[k];
            }
            rep->gpu_ignored += !strcmp(r.status, "gpu_ignored");
        }
        lvd_run_free(&r);
        from = to;
    }
    for (size_t i = 0; i < from; i++)
        benchio_row_free(&rows->v[i]);
    memmove(rows->v, rows->v + from, (rows->n - from) * sizeof *rows->v);
    rows->n -= from;
    return 0;
}

static int check_options(const benchio_import_opts *o, benchio_import_report *rep, lvd_err *err)
{
    if (!o->file)
        lvd_errf(err, "import needs a FILE (llama-bench -o json, jsonl or sql output)");
    else if (!o->engine && !o->engine_dir)
        lvd_errf(err, "import needs the engine that produced %s: --engine NAME, or --engine-dir DIR --build ID",
                 o->file);
    else if (o->engine_dir && !o->build)
        lvd_errf(err, "--engine-dir needs --build ID (the build id counts, not what llama-bench reports)");
    else if (!o->model == !o->artifact)
        lvd_errf(err, "import needs the model: --model M.gguf, or --artifact SHA256 when the file is elsewhere");
    else if (o->artifact && !lvd_sha256_valid(o->artifact))
        lvd_errf(err, "--artifact '%s' is not a SHA-256 (64 lowercase hex digits)", o->artifact);
    else if (o->session && (!*o->session || strlen(o->session) > 200))
        lvd_errf(err, "--session wants a name of 1 to 200 characters");
    else
        return 0;
    return fail(rep, BENCHIO_IMPORT_USAGE);
}

int benchio_import_file(store *s, const benchio_import_opts *o, benchio_import_report *rep, lvd_err *err)
{
    memset(rep, 0, sizeof *rep);
    if (check_options(o, rep, err))
        return -1;
    import_check c;
    size_t had = 0;
    int ret = -1;
    lvd_engine e = {0};
    int rc = read_rows(o, &c, &had, rep, err);
    rep->format = c.first.format;
    rep->rows = had;
    if (rc)
        goto out;
    rep->rows_selected = c.selected;
    const benchio_row *first = &c.first.v[0];
    if (o->model) {
        /* Hashing may take a while: outside the write transaction. */
        store_artifact a;
        if (store_identify(s, o->model, 0, &a, NULL, err)) {
            fail(rep, BENCHIO_IMPORT_INPUT);
            goto out;
        }
        snprintf(rep->artifact, sizeof rep->artifact, "%s", a.sha256);
        store_artifact_free(&a);
    } else {
        snprintf(rep->artifact, sizeof rep->artifact, "%s", o->artifact);
    }
    if (store_begin(s, err)) {
        fail(rep, BENCHIO_IMPORT_STORE);
        goto out;
    }
    if (resolve_engine(s, o, first, &e, rep, err) || (o->artifact && resolve_artifact_stub(s, o->artifact, rep, err)))
        goto rollback;
    rep->engine_id = e.id;
    if (check_build_matches(&e, first, o->file, err)) {
        fail(rep, BENCHIO_IMPORT_INPUT);
        goto rollback;
    }
    if (check_backend(s, &c.backends, &e, o, rep, err) || check_model_size(s, o, first, rep->artifact, rep, err))
        goto rollback;
    if (rep->sqlite_db ? import_db(s, &e, o, &c, rep, err) : import_rows(s, &c.first, &e, o, 1, rep, err))
        goto rollback;
    if (store_commit(s, err)) {
        fail(rep, BENCHIO_IMPORT_STORE);
        goto out;
    }
    ret = 0;
    goto out;
rollback:
    store_rollback(s);
    rep->runs_added = rep->results_added = rep->samples_added = rep->gpu_ignored = rep->warmup_flagged = 0;
    rep->engine_registered = 0;
out:
    lvd_engine_free(&e);
    benchio_rows_free(&c.first);
    return ret;
}
