/* store_merge_rows.c: the tables `lvd store merge` copies row by row
 * (artifacts, probes, devices, checks, verdicts, ceilings, fit plans,
 * session facts), each described by its columns and by what finds a row
 * the target already holds, so merging twice adds nothing. Not for engines
 * or runs (store_merge.c): those get new ids that other rows point at. */
#include "store/store_merge_internal.h"
#include "store/store_docs.h"

#include "common/util.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One table: its columns in order, each column's kind (t text, i integer,
 * r real, e an engine id and p a probe id, both mapped to this store's, k
 * the row's own id: not copied, mapped to the new row's in j->probes, d a
 * document, store_docs.h, F a verdict's fingerprint: read as its text,
 * written as this store's id of it), the WHERE clause over ?N (column N)
 * that finds the row already here, on NOT NULL columns only, and what is
 * read where it is not the columns themselves (NULL: they are). */
typedef struct merge_table {
    const char *table;
    const char *cols;
    const char *kinds;
    const char *match;
    size_t count;        /* offsetof the count in store_merge_counts */
    const char *read;
} merge_table;

#define COUNT(f) offsetof(store_merge_counts, f)

static const merge_table artifacts = {
    "artifacts",
    "sha256, size, name, gguf_version, arch, file_type, n_block, n_embd, n_head, n_head_kv, head_dim_k,"
    " head_dim_v, n_ctx_train, n_expert, n_expert_used, block_bytes, expert_bytes, non_block_bytes,"
    " tensor_bytes, n_tensors, n_kv, data_offset, shape_known, last_path, created_at, embd_bytes",
    "tititiiiiiiiiiiiiiiiiiitii", "sha256 = ?1", COUNT(artifacts), NULL};

static const merge_table after_engines[] = {
    {"probes",
     "id, engine_id, \"binary\", bin_mtime_ns, bin_size, probed_at, backend, reason, env, files, backends,"
     " no_device, cuda_archs, flags",
     "ketiiitttttttt", "engine_id = ?2 AND \"binary\" = ?3 AND probed_at = ?6 AND backend = ?7", COUNT(probes), NULL},
    {"devices", "probe_id, idx, selector, name, total_mib, free_mib, backend, compute_cap", "pittiitt",
     "probe_id = ?1 AND idx = ?2", COUNT(devices), NULL},
    {"checks",
     "artifact, engine_id, device, host, ran_at, status, mean_kld, same_top_p, ppl, ppl_base, ppl_ratio,"
     " reason, env",
     "tettitrrrrrtt",
     "artifact = ?1 AND engine_id = ?2 AND device = ?3 AND host = ?4 AND ran_at = ?5 AND env = ?13",
     COUNT(checks), NULL},
    {"verdicts",
     "artifact, host, decided_at, objective, engine_id, arm_key, p_device, p_ngl, p_fa, p_ubatch, p_type_k,"
     " p_type_v, p_n_cpu_moe, p_threads, p_env, rule, explain, fingerprint_id, stats_json, p_split_mode,"
     " p_tensor_split, p_fit_target, p_fit_ctx, serving_depth, p_parallel, p_fused_moe, p_repack",
     "ttitettiiittiitttFdttiiiiii",
     "artifact = ?1 AND host = ?2 AND decided_at = ?3 AND objective = ?4 AND rule = ?16", COUNT(verdicts),
     "artifact, host, decided_at, objective, engine_id, arm_key, p_device, p_ngl, p_fa, p_ubatch, p_type_k,"
     " p_type_v, p_n_cpu_moe, p_threads, p_env, rule, explain, " STORE_FINGERPRINT_SQL ", stats_json,"
     " p_split_mode, p_tensor_split, p_fit_target, p_fit_ctx, serving_depth, p_parallel, p_fused_moe,"
     " p_repack"},
    {"ceilings",
     "artifact, engine_id, engine_key, device, type_k, type_v, placement, ceiling, capped, max_ctx, predicted,"
     " free_mib, probes, host, measured_at",
     "tetttttiiiiiiti",
     "artifact = ?1 AND engine_id = ?2 AND device = ?4 AND type_k = ?5 AND type_v = ?6 AND placement = ?7"
     " AND host = ?14 AND measured_at = ?15",
     COUNT(ceilings), NULL},
    {"fit_plans",
     "artifact, engine_id, host, session, device, free_mib, fit_target, fit_ctx, ctx, ngl, overrides,"
     " host_blocks, ours, created_at",
     "tetttiiiiititi", "artifact = ?1 AND engine_id = ?2 AND device = ?5 AND created_at = ?14",
     COUNT(fit_plans), NULL},
    {"session_facts", "session, host, name, value, at", "tttti", "session = ?1 AND name = ?3",
     COUNT(session_facts), NULL},
};

/* The three statements of one table: read the other store, find a row
 * here, insert one here. */
typedef struct table_sql {
    lvd_sb select, find, insert;
} table_sql;

static void build_sql(const merge_table *t, table_sql *q)
{
    memset(q, 0, sizeof *q);
    lvd_sb_addf(&q->select, "SELECT %s FROM %s%s", t->read ? t->read : t->cols, t->table,
                t->kinds[0] == 'k' ? " ORDER BY id" : "");
    lvd_sb_addf(&q->find, "SELECT %s FROM %s WHERE %s", t->kinds[0] == 'k' ? "id" : "1", t->table, t->match);
    lvd_sb names = {0}, values = {0};
    size_t n;
    char **cols = lvd_split(t->cols, ',', &n);
    for (size_t c = 0; c < n; c++) {
        if (t->kinds[c] == 'k')
            continue;
        lvd_sb_addf(&names, "%s%s", names.len ? ", " : "", cols[c] + strspn(cols[c], " "));
        lvd_sb_addf(&values, "%s?%zu", values.len ? ", " : "", c + 1);
    }
    lvd_sb_addf(&q->insert, "INSERT INTO %s (%s) VALUES (%s)", t->table, lvd_sb_str(&names), lvd_sb_str(&values));
    lvd_strv_free(cols);
    lvd_sb_free(&names);
    lvd_sb_free(&values);
}

static void free_sql(table_sql *q)
{
    lvd_sb_free(&q->select);
    lvd_sb_free(&q->find);
    lvd_sb_free(&q->insert);
}

/* Binds a document or a fingerprint (kinds d, F: not NULL) to parameter
 * c + 1 of both statements. 0, or -1 with err. */
static int bind_text_col(merge_job *j, store_stmt *row, int c, char kind, store_stmt *to[2], lvd_err *err)
{
    char *text = kind == 'd' ? store_col_doc(row, c) : store_col_strdup(row, c);
    int64_t id = 0;
    int rc = 0;
    if (!text)
        rc = lvd_errf(err, "%s: a verdict's statistics do not unpack (a damaged store)", store_path(j->src));
    else if (kind == 'F')
        rc = store_fingerprint_id(j->dst, text, &id, err);
    for (int i = 0; i < 2 && !rc; i++) {
        if (kind == 'd')
            store_bind_doc(to[i], c + 1, text);
        else
            store_bind_i64(to[i], c + 1, id);
    }
    free(text);
    return rc;
}

/* Binds column c of the other store's row (kind k) to parameter c + 1 of
 * both statements. 0, 1 when an id it points at is not mapped (the row
 * is left out: a fit plan of an engine the other store no longer has), or
 * -1 with err. */
static int bind_col(merge_job *j, store_stmt *row, int c, char kind, store_stmt *find, store_stmt *ins,
                    lvd_err *err)
{
    store_stmt *to[] = {find, ins};
    if ((kind == 'd' || kind == 'F') && !store_col_null(row, c))
        return bind_text_col(j, row, c, kind, to, err);
    for (int i = 0; i < 2; i++) {
        if (store_col_null(row, c) || kind == 'k') {
            store_bind_null(to[i], c + 1);
        } else if (kind == 't') {
            store_bind_text(to[i], c + 1, store_col_text(row, c));
        } else if (kind == 'r') {
            store_bind_double(to[i], c + 1, store_col_real(row, c));
        } else if (kind == 'i') {
            store_bind_i64(to[i], c + 1, store_col_i64(row, c));
        } else {
            int64_t id = merge_map_get(kind == 'e' ? &j->engines : &j->probes, store_col_i64(row, c));
            if (!id)
                return 1;
            store_bind_i64(to[i], c + 1, id);
        }
    }
    return 0;
}

/* Copies one row unless the target holds it: 1 added, 0 not, -1 with err. */
static int copy_row(merge_job *j, const merge_table *t, store_stmt *row, store_stmt *find, store_stmt *ins,
                    lvd_err *err)
{
    for (int c = 0; t->kinds[c]; c++) {
        int rc = bind_col(j, row, c, t->kinds[c], find, ins, err);
        if (rc)
            return rc < 0 ? -1 : 0;
    }
    int rc = store_step(find), have = rc == STORE_ROW;
    int64_t here = have ? store_col_i64(find, 0) : 0;
    store_reset(find);
    if (rc == STORE_ERROR)
        return store_fail(j->dst, err, "cannot read the merge target");
    if (!have) {
        rc = store_step(ins);
        store_reset(ins);
        if (rc != STORE_DONE) {
            char what[64];
            snprintf(what, sizeof what, "cannot merge a row of %s", t->table);
            return store_fail(j->dst, err, what);
        }
        if (t->kinds[0] == 'k') /* only a table with ids has one: PostgreSQL's lastval() fails elsewhere */
            here = store_last_id(j->dst);
    }
    if (t->kinds[0] == 'k')
        merge_map_add(&j->probes, store_col_i64(row, 0), here);
    return !have;
}

static int copy_table(merge_job *j, const merge_table *t, lvd_err *err)
{
    table_sql q;
    build_sql(t, &q);
    store_stmt *row = NULL, *find = NULL, *ins = NULL;
    int ret = -1;
    if (store_prepare(j->src, lvd_sb_str(&q.select), &row, err) ||
        store_prepare(j->dst, lvd_sb_str(&q.find), &find, err) ||
        store_prepare(j->dst, lvd_sb_str(&q.insert), &ins, err))
        goto out;
    int64_t *count = (int64_t *)((char *)j->added + t->count);
    int rc;
    while ((rc = store_step(row)) == STORE_ROW) {
        int added = copy_row(j, t, row, find, ins, err);
        if (added < 0)
            goto out;
        *count += added;
    }
    if (rc != STORE_DONE) {
        store_fail(j->src, err, "cannot read the store merged");
        goto out;
    }
    ret = 0;
out:
    store_finalize(row);
    store_finalize(find);
    store_finalize(ins);
    free_sql(&q);
    return ret;
}

int merge_artifacts(merge_job *j, lvd_err *err)
{
    return copy_table(j, &artifacts, err);
}

int merge_engine_rows(merge_job *j, lvd_err *err)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(after_engines); i++)
        if (copy_table(j, &after_engines[i], err))
            return -1;
    return 0;
}
