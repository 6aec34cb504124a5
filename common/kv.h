/* kv.h: the one small configuration format llama-verdict reads (pin files,
 * profiles, nightly configs, fake-engine scenarios): `key = value` lines,
 * `# comments`, blank lines, and `[section]` headers that prefix the keys
 * that follow ("section.key"). Errors name the file and line. */
#ifndef LVD_KV_H
#define LVD_KV_H

#include "common/util.h"

#include <stddef.h>

typedef struct lvd_kv {
    char *key;
    char *value;   /* trimmed; may be empty */
    int line;
} lvd_kv;

typedef struct lvd_kvfile {
    char *name;    /* the file name used in messages */
    lvd_kv *v;
    size_t n;
} lvd_kvfile;

/* Parses text (len bytes; NUL bytes are an error). 0 or -1 ("NAME:LINE: ..."). */
int lvd_kv_parse(const char *text, size_t len, const char *name, lvd_kvfile *out, lvd_err *err);
/* Reads and parses path (at most 1 MiB). */
int lvd_kv_load(const char *path, lvd_kvfile *out, lvd_err *err);
/* The last value given for key, or NULL. */
const char *lvd_kv_get(const lvd_kvfile *kv, const char *key);
/* The entry of that last value (for its line number), or NULL. */
const lvd_kv *lvd_kv_find(const lvd_kvfile *kv, const char *key);
void lvd_kv_free(lvd_kvfile *kv);
/* Appends "key = value\n" to sb, refusing keys/values that would not read back
 * (newlines, leading/trailing spaces, '=' in keys). 0 or -1. */
int lvd_kv_format(lvd_sb *sb, const char *key, const char *value, lvd_err *err);

/* As lvd_kv_parse, for files whose keys hold conditions with '=' (the fake
 * engine's scenarios: `dev.CUDA0.tg.fa=1 = 1.25`): on a line with blanks the
 * key is its first word (the separating '=' starts the rest or ends that
 * word); on a line without, the last '=' separates. Such a key is any
 * non-empty run of non-blank bytes: the caller validates it. */
int lvd_kv_parse_cond(const char *text, size_t len, const char *name, lvd_kvfile *out, lvd_err *err);

#endif
