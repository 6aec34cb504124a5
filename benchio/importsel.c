/* importsel.c: the rows an import files under its engine (see importsel.h).
 * Not for parsing (benchout.c) or recording (import.c). */
#include "benchio/importsel.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *str_or(const char *s, const char *dflt)
{
    return s ? s : dflt;
}

static int build_selected(const benchio_row *r, const char *want)
{
    char num[32];
    int64_t n;
    snprintf(num, sizeof num, "b%lld", (long long)r->build_number);
    return (r->build_commit && benchio_commit_matches(r->build_commit, want)) || !strcmp(num, want) ||
           (lvd_parse_i64(want, &n) == 0 && n == r->build_number);
}

int benchio_import_row_selected(const benchio_row *r, const benchio_import_opts *o, int *other_backend)
{
    *other_backend = 0;
    if (o->select_build && !build_selected(r, o->select_build))
        return 0;
    if (o->select_model) {
        const char *m = r->model_filename ? r->model_filename : "";
        if (strcmp(m, o->select_model) && strcmp(lvd_base_name(m), o->select_model))
            return 0;
    }
    if (o->select_backend && strcasecmp(r->result.backends, o->select_backend)) {
        *other_backend = 1;
        return 0;
    }
    return 1;
}

int benchio_import_select_rows(benchio_rows *rows, const benchio_import_opts *o, size_t had, size_t *skipped,
                             lvd_err *err)
{
    size_t kept = 0;
    for (size_t i = 0; i < rows->n; i++) {
        int other;
        if (benchio_import_row_selected(&rows->v[i], o, &other))
            rows->v[kept++] = rows->v[i];
        else
            benchio_row_free(&rows->v[i]);
        *skipped += (size_t)other;
    }
    rows->n = kept;
    if (kept == 0)
        return lvd_errf(err, "%s: none of its %zu results is of%s%s%s%s%s%s", o->file, had,
                        o->select_build ? " build " : "", str_or(o->select_build, ""),
                        o->select_model ? " model " : "", str_or(o->select_model, ""),
                        o->select_backend ? " backend " : "", str_or(o->select_backend, ""));
    return 0;
}

void benchio_row_backend(const benchio_row *r, char *buf, size_t len)
{
    const char *b = r->result.backends[0] ? r->result.backends : "?";
    if (r->gpu_info[0])
        snprintf(buf, len, "%s on %s", b, r->gpu_info);
    else
        snprintf(buf, len, "%s", b);
}

void benchio_seen_add(benchio_seen_backends *s, const benchio_row *r)
{
    char b[200];
    benchio_row_backend(r, b, sizeof b);
    if (s->rows++ == 0)
        snprintf(s->first, sizeof s->first, "%s", r->result.backends);
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->name[i], b)) {
            s->count[i]++;
            return;
        }
    if (s->n == BENCHIO_MAX_SEEN) {
        s->others++;
        return;
    }
    snprintf(s->name[s->n], sizeof s->name[0], "%s", b);
    s->count[s->n++] = 1;
}

int benchio_seen_check(const benchio_seen_backends *s, const char *file, const char *engine,
                     const char *engine_backends, lvd_err *err)
{
    if (s->n > 1) {
        lvd_sb sb = {0};
        for (size_t i = 0; i < s->n; i++)
            lvd_sb_addf(&sb, "%s%s: %zu", i ? ", " : "", s->name[i], s->count[i]);
        if (s->others)
            lvd_sb_addf(&sb, ", others: %zu", s->others);
        lvd_errf(err, "%s: %zu results of more than one backend (%s); builds of one source share commit and "
                 "number, so each is imported for its own engine: pick one with --select-backend NAME",
                 file, s->rows, lvd_sb_str(&sb));
        lvd_sb_free(&sb);
        return -1;
    }
    if (s->rows && engine_backends && *engine_backends && strcasecmp(s->first, engine_backends))
        return lvd_errf(err, "%s: its %zu results ran on backend %s, but engine '%s' has results of backend %s: "
                        "another build's rows; import them for their own engine (or narrow the file with "
                        "--select-backend %s)", file, s->rows, s->name[0], engine, engine_backends,
                        engine_backends);
    return 0;
}
