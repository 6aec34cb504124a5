/* gguf_split.c: split models (see gguf_split.h): llama.cpp's shard naming,
 * which files make up a model, and its shape over every shard, each checked
 * to belong. One function per rule. Not for parsing one file (gguf.c) nor for
 * the shape arithmetic (gguf_shape.c). */
#include "common/gguf_split.h"

#include "common/gguf_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "-NNNNN-of-CCCCC.gguf" */
#define SUFFIX_LEN 20

/* 5 decimal digits at s into *v; 0 or -1. */
static int digits5(const char *s, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 5; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        *v = *v * 10 + (unsigned)(s[i] - '0');
    }
    return 0;
}

int gguf_split_parse_name(const char *path, gguf_split_name *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(path);
    if (len < SUFFIX_LEN)
        return 0;
    const char *s = path + len - SUFFIX_LEN;
    unsigned no, count;
    if (s[0] != '-' || digits5(s + 1, &no) != 0 || strncmp(s + 6, "-of-", 4) != 0 ||
        digits5(s + 10, &count) != 0 || strcmp(s + 15, ".gguf") != 0)
        return 0;
    if (no == 0 || no > count)
        return lvd_errf(err, "%s: named shard %u of %u: shards are numbered from 00001 to the count",
                        path, no, count);
    out->prefix = lvd_xasprintf("%.*s", (int)(len - SUFFIX_LEN), path);
    out->no = no;
    out->count = count;
    return 1;
}

char *gguf_split_shard_path(const char *prefix, unsigned no, unsigned count)
{
    return lvd_xasprintf("%s-%05u-of-%05u.gguf", prefix, no, count);
}

char *gguf_split_first(const char *path)
{
    gguf_split_name sn;
    if (gguf_split_parse_name(path, &sn, NULL) != 1 || sn.count < 2) {
        free(sn.prefix);
        return lvd_xstrdup(path);
    }
    char *first = gguf_split_shard_path(sn.prefix, 1, sn.count);
    free(sn.prefix);
    return first;
}

/* A file beside the shards of sn numbered past their count is an error: a
 * leftover from another split, or a shard llama.cpp would silently ignore. */
static int check_no_extra(const gguf_split_name *sn, lvd_err *err)
{
    char *dir = lvd_xstrdup(sn->prefix);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : dir;
    if (slash)
        *slash = '\0';
    DIR *d = opendir(slash ? (*dir ? dir : "/") : ".");
    int rc = 0;
    struct dirent *e;
    while (d && rc == 0 && (e = readdir(d))) {
        size_t bl = strlen(base), el = strlen(e->d_name);
        unsigned no, count;
        const char *s = e->d_name + bl;
        if (el != bl + SUFFIX_LEN || strncmp(e->d_name, base, bl) != 0 || s[0] != '-' ||
            digits5(s + 1, &no) != 0 || strncmp(s + 6, "-of-", 4) != 0 ||
            digits5(s + 10, &count) != 0 || strcmp(s + 15, ".gguf") != 0)
            continue;
        if (count == sn->count && (no == 0 || no > count))
            rc = lvd_errf(err, "%s-%05u-of-%05u.gguf: an extra shard: the split model %s-00001-of-%05u.gguf"
                          " has %u shards", sn->prefix, no, count, sn->prefix, sn->count, sn->count);
    }
    if (d)
        closedir(d);
    free(dir);
    return rc;
}

/* Shard no of sn exists as a regular file. */
static int check_present(const gguf_split_name *sn, const char *shard, unsigned no, lvd_err *err)
{
    struct stat sb;
    if (stat(shard, &sb) != 0)
        return lvd_errf(err, "%s: missing shard %u of %u of the split model %s-00001-of-%05u.gguf: %s",
                        shard, no, sn->count, sn->prefix, sn->count, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return lvd_errf(err, "%s: shard %u of %u is not a regular file", shard, no, sn->count);
    return 0;
}

int gguf_split_files(const char *path, char ***files, size_t *n, lvd_err *err)
{
    *files = NULL;
    *n = 0;
    gguf_split_name sn;
    int named = gguf_split_parse_name(path, &sn, err);
    if (named < 0)
        return -1;
    if (named == 0 || sn.count == 1) {
        free(sn.prefix);
        lvd_strv_push(files, n, lvd_xstrdup(path));
        return 0;
    }
    int rc = check_no_extra(&sn, err);
    for (unsigned no = 1; rc == 0 && no <= sn.count; no++) {
        char *shard = gguf_split_shard_path(sn.prefix, no, sn.count);
        rc = check_present(&sn, shard, no, err);
        lvd_strv_push(files, n, shard);
    }
    free(sn.prefix);
    if (rc != 0) {
        lvd_strv_free(*files);
        *files = NULL;
        *n = 0;
    }
    return rc;
}

/* --- each shard belongs -------------------------------------------------- */

/* f's integer key, or -1 when absent (or not a non-negative integer). */
static int64_t key_int(const gguf_file *f, const char *key)
{
    const gguf_kv *k = gguf_kv_find(f, key);
    return k && k->has_int && k->type != GGUF_VT_ARRAY && k->u <= INT64_MAX ? (int64_t)k->u : -1;
}

/* A model named as one file must not be a shard of several. */
static int check_single(const char *path, const gguf_file *f, lvd_err *err)
{
    int64_t count = key_int(f, "split.count");
    if (count > 1)
        return lvd_errf(err, "%s: split.count is %lld: a shard of a split model, but not named"
                        " NAME-NNNNN-of-%05lld.gguf as llama.cpp finds shards",
                        path, (long long)count, (long long)count);
    return 0;
}

/* Shard i of n (from 0) says so, and counts the same tensors as the first. */
static int check_shard(char *const *files, size_t n, size_t i, const gguf_file *f,
                       int64_t first_tensors, lvd_err *err)
{
    const char *p = files[i];
    int64_t count = key_int(f, "split.count"), no = key_int(f, "split.no");
    int64_t tensors = key_int(f, "split.tensors.count");
    if (count < 0)
        return lvd_errf(err, "%s: no split.count: named shard %zu of %zu, but not a shard of a split model",
                        p, i + 1, n);
    if ((uint64_t)count != n)
        return lvd_errf(err, "%s: split.count is %lld, but the name says %zu shards: a shard of another model",
                        p, (long long)count, n);
    if (no < 0 || (uint64_t)no != i)
        return lvd_errf(err, "%s: split.no is %lld, but the name says shard %zu (split.no %zu)", p,
                        (long long)no, i + 1, i);
    if (tensors < 0)
        return lvd_errf(err, "%s: no split.tensors.count", p);
    if (i > 0 && tensors != first_tensors)
        return lvd_errf(err, "%s: split.tensors.count is %lld, but %s says %lld: a shard of another model",
                        p, (long long)tensors, files[0], (long long)first_tensors);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const gguf_tinfo *)a)->name, ((const gguf_tinfo *)b)->name);
}

/* Every shard's tensors in one array (names borrowed from fs), checked
 * against split.tensors.count and for a tensor in two shards. */
static int gather(char *const *files, gguf_file *fs, size_t n, gguf_tinfo **out, size_t *total,
                  lvd_err *err)
{
    *total = 0;
    for (size_t i = 0; i < n; i++)
        *total += fs[i].n_ts;
    gguf_tinfo *all = lvd_xcalloc(*total ? *total : 1, sizeof *all);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < fs[i].n_ts; j++) {
            all[k] = fs[i].ts[j];
            all[k++].file = i;
        }
    *out = all;
    int64_t want = n > 1 ? key_int(&fs[0], "split.tensors.count") : (int64_t)*total;
    if ((uint64_t)want != *total)
        return lvd_errf(err, "%s: the %zu shards hold %zu tensors, but split.tensors.count is %lld", files[0],
                        n, *total, (long long)want);
    qsort(all, *total, sizeof *all, by_name);
    for (size_t i = 1; i < *total; i++)
        if (strcmp(all[i - 1].name, all[i].name) == 0) {
            size_t a = all[i - 1].file < all[i].file ? all[i - 1].file : all[i].file;
            size_t b = all[i - 1].file < all[i].file ? all[i].file : all[i - 1].file;
            return lvd_errf(err, "%s: tensor '%.64s' is also in %s: a shard of another model", files[b],
                            all[i].name, files[a]);
        }
    return 0;
}

int gguf_read_split_shape(char *const *files, size_t n, gguf_shape *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    out->file_type = -1;
    gguf_file *fs = lvd_xcalloc(n ? n : 1, sizeof *fs);
    gguf_tinfo *all = NULL;
    size_t total = 0;
    int rc = n ? 0 : lvd_errf(err, "no model file");
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = gguf_file_read(files[i], &fs[i], err);
        if (rc == 0)
            rc = n == 1 ? check_single(files[i], &fs[i], err)
                        : check_shard(files, n, i, &fs[i], key_int(&fs[0], "split.tensors.count"), err);
    }
    if (rc == 0)
        rc = gather(files, fs, n, &all, &total, err);
    if (rc == 0)
        rc = gguf_shape_derive(&fs[0], all, total, files[0], out, err);
    free(all);
    for (size_t i = 0; i < n; i++)
        gguf_file_free(&fs[i]);
    free(fs);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        out->file_type = -1;
    }
    return rc;
}
