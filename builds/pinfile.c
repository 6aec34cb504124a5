/* pinfile.c: parsing, querying and atomically rewriting the pin file (see
 * pinfile.h for the format). Lines are read by common/kv.h's line reader,
 * which keeps comments and blank lines for the rewrite. */
#include "builds/pinfile.h"

#include "common/kv.h"
#include "common/paths.h"
#include "common/sha256.h"
#include "builds/asset.h"
#include "builds/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIN_MAX_BYTES (64 * 1024)
#define SHA_PREFIX "sha256."

static builds_pin_line *add_line(builds_pin *p)
{
    p->lines = lvd_xrealloc(p->lines, (p->n_lines + 1) * sizeof *p->lines);
    builds_pin_line *l = &p->lines[p->n_lines++];
    memset(l, 0, sizeof *l);
    return l;
}

static builds_pin_line *find_key(const builds_pin *p, const char *key)
{
    for (size_t i = 0; i < p->n_lines; i++)
        if (p->lines[i].key && !strcmp(p->lines[i].key, key))
            return &p->lines[i];
    return NULL;
}

/* Validates one setting; canonicalises flavour spellings in key/value. */
static int check_setting(const builds_pin *p, char **key, char **value, const char *where,
                         lvd_err *err)
{
    if (!strcmp(*key, "build")) {
        if (find_key(p, "build"))
            return lvd_errf(err, "%s: 'build' is set twice", where);
        if (!builds_name_valid(*value))
            return lvd_errf(err, "%s: build '%s' is not a llama.cpp build (expected b<number> or a release "
                                 "v<x.y.z>)",
                            where, *value);
        return 0;
    }
    if (!strcmp(*key, "flavour")) {
        const char *canon = builds_flavour_canonical(*value);
        if (!canon) {
            char *known = builds_flavour_list();
            lvd_errf(err, "%s: unknown flavour '%s'; known flavours: %s", where, *value, known);
            free(known);
            return -1;
        }
        for (size_t i = 0; i < p->n_lines; i++)
            if (p->lines[i].key && !strcmp(p->lines[i].key, "flavour") &&
                !strcmp(p->lines[i].value, canon))
                return lvd_errf(err, "%s: flavour %s is listed twice", where, canon);
        free(*value);
        *value = lvd_xstrdup(canon);
        return 0;
    }
    if (lvd_starts_with(*key, SHA_PREFIX)) {
        const char *canon = builds_flavour_canonical(*key + strlen(SHA_PREFIX));
        if (!canon)
            return lvd_errf(err, "%s: '%s' names an unknown flavour", where, *key);
        char *ckey = lvd_xasprintf(SHA_PREFIX "%s", canon);
        free(*key);
        *key = ckey;
        if (find_key(p, ckey))
            return lvd_errf(err, "%s: '%s' is set twice", where, ckey);
        if (!lvd_sha256_valid(*value))
            return lvd_errf(err, "%s: '%s' must be 64 lowercase hex characters, not '%.80s'",
                            where, ckey, *value);
        return 0;
    }
    return lvd_errf(err, "%s: unknown setting '%s' (expected build, flavour, sha256.<flavour>)",
                    where, *key);
}

int builds_pin_parse(const char *path, const char *text, size_t len, builds_pin *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    out->path = lvd_xstrdup(path);
    lvd_kvreader r;
    lvd_kvline kl;
    int rc = lvd_kv_reader_init(&r, text, len, path, err);
    while (rc == 0 && (rc = lvd_kv_reader_next(&r, &kl, err)) == 1) {
        rc = 0;
        if (kl.kind == LVD_KVLINE_COMMENT) {
            add_line(out)->text = lvd_xstrndup(kl.text, kl.text_len);
            continue;
        }
        char where[1200];
        snprintf(where, sizeof where, "%s:%d", path, kl.line);
        if (kl.kind == LVD_KVLINE_SECTION) {
            rc = lvd_errf(err, "%s: expected 'key = value', got a section header (a pin file has none)",
                          where);
            break;
        }
        if (!kl.value_len) {
            rc = lvd_errf(err, "%s: expected 'key = value' with both sides non-empty", where);
            break;
        }
        char *key = lvd_xstrndup(kl.key, kl.key_len);
        char *value = lvd_xstrndup(kl.value, kl.value_len);
        if (check_setting(out, &key, &value, where, err) == 0) {
            builds_pin_line *l = add_line(out);
            l->key = key;
            l->value = value;
            continue;
        }
        rc = -1;
        free(key);
        free(value);
    }
    if (rc == 0 && !builds_pin_build(out))
        rc = lvd_errf(err, "%s: no 'build = b<number>' (or 'build = v<x.y.z>') line", path);
    if (rc == 0 && !builds_pin_flavour(out, 0))
        rc = lvd_errf(err, "%s: no 'flavour = ...' line", path);
    /* a digest for a flavour the pin does not list is a typo or a leftover */
    for (size_t i = 0; rc == 0 && i < out->n_lines; i++) {
        const char *k = out->lines[i].key;
        if (!k || !lvd_starts_with(k, SHA_PREFIX))
            continue;
        const char *fl = k + strlen(SHA_PREFIX);
        int listed = 0;
        for (size_t f = 0; builds_pin_flavour(out, f); f++)
            listed |= !strcmp(builds_pin_flavour(out, f), fl);
        if (!listed)
            rc = lvd_errf(err, "%s: '%s' is recorded but flavour %s is not listed", path, k, fl);
    }
    if (rc != 0)
        builds_pin_free(out);
    return rc;
}

int builds_pin_load(const char *path, builds_pin *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    lvd_sb sb = {0};
    if (lvd_read_file(path, PIN_MAX_BYTES, &sb, err) != 0) {
        lvd_sb_free(&sb);
        return -1;
    }
    int rc = builds_pin_parse(path, lvd_sb_str(&sb), sb.len, out, err);
    lvd_sb_free(&sb);
    return rc;
}

void builds_pin_free(builds_pin *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_lines; i++) {
        free(p->lines[i].text);
        free(p->lines[i].key);
        free(p->lines[i].value);
    }
    free(p->lines);
    free(p->path);
    memset(p, 0, sizeof *p);
}

const char *builds_pin_build(const builds_pin *p)
{
    builds_pin_line *l = find_key(p, "build");
    return l ? l->value : NULL;
}

const char *builds_pin_flavour(const builds_pin *p, size_t i)
{
    for (size_t k = 0; k < p->n_lines; k++)
        if (p->lines[k].key && !strcmp(p->lines[k].key, "flavour") && i-- == 0)
            return p->lines[k].value;
    return NULL;
}

const char *builds_pin_sha256(const builds_pin *p, const char *flavour)
{
    const char *canon = builds_flavour_canonical(flavour);
    if (!canon)
        return NULL;
    char *key = lvd_xasprintf(SHA_PREFIX "%s", canon);
    builds_pin_line *l = find_key(p, key);
    free(key);
    return l ? l->value : NULL;
}

/* Inserts a new setting after the last line whose key starts with after
 * (or at the end). */
static void insert_after(builds_pin *p, const char *after, const char *key, const char *value)
{
    size_t at = p->n_lines;
    for (size_t i = 0; i < p->n_lines; i++)
        if (p->lines[i].key && lvd_starts_with(p->lines[i].key, after))
            at = i + 1;
    add_line(p);
    memmove(&p->lines[at + 1], &p->lines[at], (p->n_lines - 1 - at) * sizeof *p->lines);
    p->lines[at] = (builds_pin_line){.key = lvd_xstrdup(key), .value = lvd_xstrdup(value)};
}

static void set_value(builds_pin_line *l, const char *value)
{
    free(l->value);
    l->value = lvd_xstrdup(value);
}

int builds_pin_promote(builds_pin *p, const char *build, const char *flavour, const char *sha256,
                      lvd_err *err)
{
    const char *canon = builds_flavour_canonical(flavour);
    if (!builds_valid(build))
        return lvd_errf(err, "'%s' is not a llama.cpp build", build);
    if (!canon)
        return lvd_errf(err, "unknown flavour '%s'", flavour);
    if (!lvd_sha256_valid(sha256))
        return lvd_errf(err, "'%s' is not a sha256 (64 lowercase hex characters)", sha256);
    builds_pin_line *b = find_key(p, "build");
    if (!b) {
        insert_after(p, "build", "build", build);
    } else if (strcmp(b->value, build) != 0) {
        set_value(b, build);
        /* digests recorded for the old build say nothing about the new one */
        size_t w = 0;
        for (size_t i = 0; i < p->n_lines; i++) {
            if (p->lines[i].key && lvd_starts_with(p->lines[i].key, SHA_PREFIX)) {
                free(p->lines[i].key);
                free(p->lines[i].value);
                free(p->lines[i].text);
                continue;
            }
            p->lines[w++] = p->lines[i];
        }
        p->n_lines = w;
    }
    int listed = 0;
    for (size_t f = 0; builds_pin_flavour(p, f); f++)
        listed |= !strcmp(builds_pin_flavour(p, f), canon);
    if (!listed)
        insert_after(p, "flavour", "flavour", canon);
    char *key = lvd_xasprintf(SHA_PREFIX "%s", canon);
    builds_pin_line *s = find_key(p, key);
    if (s) {
        set_value(s, sha256);
    } else {
        int any = 0;
        for (size_t i = 0; i < p->n_lines; i++)
            any |= p->lines[i].key && lvd_starts_with(p->lines[i].key, SHA_PREFIX);
        insert_after(p, any ? SHA_PREFIX : "flavour", key, sha256);
    }
    free(key);
    return 0;
}

char *builds_pin_format(const builds_pin *p)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < p->n_lines; i++) {
        const builds_pin_line *l = &p->lines[i];
        if (l->key)
            lvd_sb_addf(&sb, "%s = %s\n", l->key, l->value);
        else
            lvd_sb_addf(&sb, "%s\n", l->text ? l->text : "");
    }
    return lvd_sb_detach(&sb);
}

int builds_pin_save(const builds_pin *p, const char *path, lvd_err *err)
{
    char *text = builds_pin_format(p);
    int rc = lvd_write_file_atomic(path, text, strlen(text), err);
    free(text);
    return rc;
}

char *builds_pin_default_path(void)
{
    const char *env = getenv("LVD_PIN_FILE");
    if (env && *env)
        return lvd_xstrdup(env);
    return lvd_data_file("pin.default");
}
