/* kv.c: the one reader (line by line, and as a table) and the writer of the
 * `key = value` format of kv.h. */
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

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A control byte other than tab: refused anywhere in a line. */
static int is_control(char c)
{
    return (unsigned char)c < 0x20 ? c != '\t' : c == 0x7f;
}

static void trim(const char **s, const char **e)
{
    while (*s < *e && is_blank(**s))
        (*s)++;
    while (*e > *s && is_blank((*e)[-1]))
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
    while (w < e && !is_blank(*w))
        w++;
    if (w == e) {
        while (e > s && e[-1] != '=')
            e--;
        return e > s ? e - 1 : NULL;
    }
    const char *r = w;
    while (r < e && is_blank(*r))
        r++;
    if (*r == '=')
        return r;
    return w - s > 1 && w[-1] == '=' ? w - 1 : NULL;
}

int lvd_kv_reader_init(lvd_kvreader *r, const char *text, size_t len, const char *name, lvd_err *err)
{
    memset(r, 0, sizeof *r);
    r->p = text;
    r->end = text + len;
    r->name = name;
    if (memchr(text, '\0', len))
        return lvd_errf(err, "%s: not a text file (NUL byte)", name);
    return 0;
}

int lvd_kv_reader_next(lvd_kvreader *r, lvd_kvline *out, lvd_err *err)
{
    if (r->p >= r->end)
        return 0;
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    const char *ls = r->p, *le = nl ? nl : r->end;
    r->p = nl ? nl + 1 : r->end;
    int line = ++r->line;
    if (le > ls && le[-1] == '\r')
        le--; /* CRLF */
    for (const char *c = ls; c < le; c++)
        if (is_control(*c))
            return lvd_errf(err, "%s:%d: control character 0x%02x in the line", r->name, line,
                            (unsigned)(unsigned char)*c);
    memset(out, 0, sizeof *out);
    out->line = line;
    out->text = ls;
    while (le > ls && is_blank(le[-1]))
        le--;
    out->text_len = (size_t)(le - ls);
    trim(&ls, &le);
    if (ls == le || *ls == '#' || *ls == ';') {
        out->kind = LVD_KVLINE_COMMENT;
        return 1;
    }
    if (*ls == '[') {
        if (le[-1] != ']' || !valid_key(ls + 1, (size_t)(le - ls - 2)))
            return lvd_errf(err, "%s:%d: malformed section header", r->name, line);
        out->kind = LVD_KVLINE_SECTION;
        out->key = ls + 1;
        out->key_len = (size_t)(le - ls - 2);
        return 1;
    }
    const char *eq = separator(ls, le, r->cond_keys);
    if (!eq)
        return lvd_errf(err, "%s:%d: expected 'key = value'", r->name, line);
    const char *ks = ls, *ke = eq, *vs = eq + 1, *ve = le;
    trim(&ks, &ke);
    trim(&vs, &ve);
    if (r->cond_keys ? ks == ke : !valid_key(ks, (size_t)(ke - ks)))
        return lvd_errf(err, "%s:%d: invalid key '%.*s'", r->name, line, (int)(ke - ks), ks);
    out->kind = LVD_KVLINE_SETTING;
    out->key = ks;
    out->key_len = (size_t)(ke - ks);
    out->value = vs;
    out->value_len = (size_t)(ve - vs);
    return 1;
}

static int parse(const char *text, size_t len, const char *name, int cond_keys, lvd_kvfile *out,
                 lvd_err *err)
{
    memset(out, 0, sizeof *out);
    lvd_kvreader r;
    if (lvd_kv_reader_init(&r, text, len, name, err))
        return -1;
    r.cond_keys = cond_keys;
    out->name = lvd_xstrdup(name);
    size_t cap = 0;
    char *section = NULL;
    lvd_kvline l;
    int rc;
    while ((rc = lvd_kv_reader_next(&r, &l, err)) == 1) {
        if (l.kind == LVD_KVLINE_SECTION) {
            free(section);
            section = lvd_xstrndup(l.key, l.key_len);
        }
        if (l.kind != LVD_KVLINE_SETTING)
            continue;
        if (out->n == cap) {
            cap = cap ? cap * 2 : 16;
            out->v = lvd_xrealloc(out->v, cap * sizeof *out->v);
        }
        lvd_kv *kv = &out->v[out->n++];
        kv->key = section ? lvd_xasprintf("%s.%.*s", section, (int)l.key_len, l.key)
                          : lvd_xstrndup(l.key, l.key_len);
        kv->value = lvd_xstrndup(l.value, l.value_len);
        kv->line = l.line;
    }
    free(section);
    if (rc < 0)
        lvd_kv_free(out);
    return rc;
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
    int control = 0;
    for (const char *c = value; *c; c++)
        control |= is_control(*c);
    if (control || (vl && (is_blank(value[0]) || is_blank(value[vl - 1]))))
        return lvd_errf(err, "value of '%s' cannot be written on one line", key);
    lvd_sb_addf(sb, "%s = %s\n", key, value);
    return 0;
}
