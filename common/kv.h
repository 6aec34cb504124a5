/* kv.h: the one small configuration format llama-verdict reads (pin files,
 * profiles, nightly configs, fake-engine scenarios), and its one reader.
 * Not for what a key means (each file's own module checks that).
 *
 * The rules, the same for every file:
 *  - lines end at '\n'; a '\r' that ends a line (CRLF) is dropped;
 *  - blanks are spaces and tabs: around a line, a key, the '=' and a value
 *    they do not count; any other control byte (including a lone '\r', a
 *    vertical tab, a form feed) is an error, and a NUL byte refuses the file;
 *  - a line that is blank, or whose first non-blank byte is '#' or ';', is a
 *    comment; there are no comments after a value ("a # b" is a value);
 *  - `[name]` (a valid key inside) starts a section: the keys after it read
 *    "name.key"; lvd_kv_parse applies it, line readers see it;
 *  - `key = value`: the first '=' separates (a value may hold '=' and '#');
 *    a key is [A-Za-z0-9_./-]+; a value may be empty;
 *  - a key may repeat: lvd_kv_get gives the last value, every entry is kept
 *    (a format that forbids repeats says so itself, as the pin file does).
 * Errors read "NAME:LINE: what is wrong". */
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

/* --- line by line: for files rewritten in place (builds/pinfile.c keeps the
 * user's comments and layout) ------------------------------------------- */

typedef enum lvd_kvline_kind {
    LVD_KVLINE_COMMENT,  /* a blank line or a comment */
    LVD_KVLINE_SECTION,  /* `[name]`: key holds the name */
    LVD_KVLINE_SETTING,  /* `key = value` */
} lvd_kvline_kind;

/* One line; the pointers point into the text being read (not NUL-terminated). */
typedef struct lvd_kvline {
    lvd_kvline_kind kind;
    int line;                /* from 1 */
    const char *text;        /* the line without its end and trailing blanks */
    size_t text_len;
    const char *key;         /* SETTING: the key as written (no section); SECTION: the name */
    size_t key_len;
    const char *value;       /* SETTING: the value, blanks trimmed */
    size_t value_len;
} lvd_kvline;

typedef struct lvd_kvreader {
    const char *p, *end, *name;
    int line;
    int cond_keys;           /* keys as lvd_kv_parse_cond reads them */
} lvd_kvreader;

/* Starts reading text (len bytes) named name in messages: 0, or -1 when the
 * text holds a NUL byte ("NAME: not a text file (NUL byte)"). */
int lvd_kv_reader_init(lvd_kvreader *r, const char *text, size_t len, const char *name, lvd_err *err);
/* The next line into *out: 1, 0 at the end, or -1 ("NAME:LINE: ..."). */
int lvd_kv_reader_next(lvd_kvreader *r, lvd_kvline *out, lvd_err *err);

/* --- the whole file as a table ----------------------------------------- */

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
 * (control bytes, leading/trailing blanks, invalid keys). 0 or -1. */
int lvd_kv_format(lvd_sb *sb, const char *key, const char *value, lvd_err *err);

/* As lvd_kv_parse, for files whose keys hold conditions with '=' (the fake
 * engine's scenarios: `dev.CUDA0.tg.fa=1 = 1.25`): on a line with blanks the
 * key is its first word (the separating '=' starts the rest or ends that
 * word); on a line without, the last '=' separates. Such a key is any
 * non-empty run of non-blank bytes: the caller validates it. */
int lvd_kv_parse_cond(const char *text, size_t len, const char *name, lvd_kvfile *out, lvd_err *err);

#endif
