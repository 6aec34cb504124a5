/* kv.c: parser and writer for the `key = value` format of kv.h. */
#include "common/kv.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int valid_key(const char *k, size_t n)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)k[i];
        if (!(isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/'))
            return 0;
    }
    return 1;
}

static void trim(const char **s, const char **e)
{
    while (*s < *e && isspace((unsigned char)**s))
        (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

/* The '=' that separates key and value in the trimmed line [s, e), or NULL.
 * Plain keys end at the first '='; condition keys (lvd_kv_parse_cond) at the
 * first word when the line has blanks, else at the last '='. */
static const char *separator(const char *s, const char *e, int cond_keys)
{
    if (!cond_keys)
        return memchr(s, '=', (size_t)(e - s));
    const char *w = s;
    while (w < e && !isspace((unsigned char)*w))
        w++;
    if (w == e) {
        while (e > s && e[-1] != '=')
            e--;
        return e > s ? e - 1 : NULL;
    }
    const char *r = w;
    while (r < e && isspace((unsigned char)*r))
        r++;
    if (*r == '=')
        return r;
    return w - s > 1 && w[-1] == '=' ? w - 1 : NULL;
}

static int parse(const char *text, size_t len, const char *name, int cond_keys, lvd_kvfile *out,
                 lvd_err *err)
{
    memset(out, 0, sizeof *out);
    out->name = lvd_xstrdup(name);
    if (memchr(text, '\0', len)) {
        lvd_kv_free(out);
        return lvd_errf(err, "%s: binary data (NUL byte) in a text file", name);
    }
    size_t cap = 0;
    char *section = NULL;
    const char *p = text, *end = text + len;
    for (int line = 1; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *ls = p, *le = nl ? nl : end;
        p = nl ? nl + 1 : end;
        trim(&ls, &le);
        if (ls == le || *ls == '#' || *ls == ';')
            continue;
        if (*ls == '[') {
            if (le[-1] != ']' || !valid_key(ls + 1, (size_t)(le - ls - 2))) {
                lvd_errf(err, "%s:%d: malformed section header", name, line);
                goto fail;
            }
            free(section);
            section = lvd_xstrndup(ls + 1, (size_t)(le - ls - 2));
            continue;
        }
        const char *eq = separator(ls, le, cond_keys);
        if (!eq) {
            lvd_errf(err, "%s:%d: expected 'key = value'", name, line);
            goto fail;
        }
        const char *ks = ls, *ke = eq, *vs = eq + 1, *ve = le;
        trim(&ks, &ke);
        trim(&vs, &ve);
        if (cond_keys ? ks == ke : !valid_key(ks, (size_t)(ke - ks))) {
            lvd_errf(err, "%s:%d: invalid key '%.*s'", name, line, (int)(ke - ks), ks);
            goto fail;
        }
        if (out->n == cap) {
            cap = cap ? cap * 2 : 16;
            out->v = lvd_xrealloc(out->v, cap * sizeof *out->v);
        }
        lvd_kv *kv = &out->v[out->n++];
        kv->key = section ? lvd_xasprintf("%s.%.*s", section, (int)(ke - ks), ks)
                          : lvd_xstrndup(ks, (size_t)(ke - ks));
        kv->value = lvd_xstrndup(vs, (size_t)(ve - vs));
        kv->line = line;
    }
    free(section);
    return 0;
fail:
    free(section);
    lvd_kv_free(out);
    return -1;
}

int lvd_kv_parse(const char *text, size_t len, const char *name, lvd_kvfile *out, lvd_err *err)
{
    return parse(text, len, name, 0, out, err);
}

int lvd_kv_parse_cond(const char *text, size_t len, const char *name, lvd_kvfile *out, lvd_err *err)
{
    return parse(text, len, name, 1, out, err);
}

int lvd_kv_load(const char *path, lvd_kvfile *out, lvd_err *err)
{
    lvd_sb sb = {0};
    memset(out, 0, sizeof *out);
    if (lvd_read_file(path, (size_t)1 << 20, &sb, err)) {
        lvd_sb_free(&sb);
        return -1;
    }
    int rc = lvd_kv_parse(lvd_sb_str(&sb), sb.len, path, out, err);
    lvd_sb_free(&sb);
    return rc;
}

const lvd_kv *lvd_kv_find(const lvd_kvfile *kv, const char *key)
{
    for (size_t i = kv->n; i-- > 0;)
        if (!strcmp(kv->v[i].key, key))
            return &kv->v[i];
    return NULL;
}

const char *lvd_kv_get(const lvd_kvfile *kv, const char *key)
{
    const lvd_kv *e = lvd_kv_find(kv, key);
    return e ? e->value : NULL;
}

void lvd_kv_free(lvd_kvfile *kv)
{
    if (!kv)
        return;
    for (size_t i = 0; i < kv->n; i++) {
        free(kv->v[i].key);
        free(kv->v[i].value);
    }
    free(kv->v);
    free(kv->name);
    memset(kv, 0, sizeof *kv);
}

int lvd_kv_format(lvd_sb *sb, const char *key, const char *value, lvd_err *err)
{
    size_t vl = strlen(value);
    if (!valid_key(key, strlen(key)))
        return lvd_errf(err, "invalid key '%s'", key);
    if (strpbrk(value, "\n\r") || (vl && (isspace((unsigned char)value[0]) ||
                                          isspace((unsigned char)value[vl - 1]))))
        return lvd_errf(err, "value of '%s' cannot be written on one line", key);
    lvd_sb_addf(sb, "%s = %s\n", key, value);
    return 0;
}
