/* store_docs.c: the store's large documents packed with zlib and its
 * verdicts' fingerprints stored once (see store_docs.h). Not for the
 * documents' contents (select/ writes them). */
#include "store/store_docs.h"

#include "common/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define TAG 'z'
#define HEAD 5 /* the tag and the text's length */

unsigned char *store_doc_pack(const char *text, size_t *len)
{
    size_t n = text ? strlen(text) : 0;
    if (n < STORE_DOC_MIN || n > UINT32_MAX)
        return NULL;
    uLongf room = compressBound((uLong)n);
    unsigned char *out = lvd_xmalloc(HEAD + room);
    if (compress2(out + HEAD, &room, (const Bytef *)text, (uLong)n, Z_BEST_COMPRESSION) != Z_OK) {
        free(out);
        return NULL;
    }
    out[0] = TAG;
    for (int i = 0; i < 4; i++)
        out[1 + i] = (unsigned char)(n >> (8 * i));
    *len = HEAD + room;
    return out;
}

char *store_doc_unpack(const void *blob, size_t len)
{
    const unsigned char *b = blob;
    if (!b || len < HEAD || b[0] != TAG)
        return NULL;
    uLongf n = 0;
    for (int i = 0; i < 4; i++)
        n |= (uLongf)b[1 + i] << (8 * i);
    if (n / 1032 > len) /* deflate expands at most about 1032:1: a larger claim is no packed document */
        return NULL;
    char *text = lvd_xmalloc(n + 1);
    uLongf got = n;
    if (uncompress((Bytef *)text, &got, b + HEAD, (uLong)(len - HEAD)) != Z_OK || got != n ||
        memchr(text, '\0', n)) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

int store_doc_column(const char *table, const char *column)
{
    return (!strcmp(table, "verdicts") && !strcmp(column, "stats_json")) ||
           (!strcmp(table, "pin_decisions") && !strcmp(column, "details_json"));
}

void store_bind_doc(store_stmt *st, int idx, const char *text)
{
    size_t len = 0;
    unsigned char *packed = st->ops->bind_blob ? store_doc_pack(text, &len) : NULL;
    if (packed)
        st->ops->bind_blob(st, idx, packed, len);
    else
        st->ops->bind_text(st, idx, text);
    free(packed);
}

char *store_col_doc(store_stmt *st, int col)
{
    size_t len = 0;
    const void *blob = st->ops->col_blob ? st->ops->col_blob(st, col, &len) : NULL;
    return blob ? store_doc_unpack(blob, len) : store_col_strdup(st, col);
}

int store_fingerprint_id(store *s, const char *fingerprint, int64_t *id, lvd_err *err)
{
    *id = 0;
    if (!fingerprint)
        return 0;
    store_stmt *ins = NULL, *sel = NULL;
    if (store_prepare(s, "INSERT INTO verdict_fingerprints (fingerprint) VALUES (?1)"
                         " ON CONFLICT (fingerprint) DO NOTHING", &ins, err) ||
        store_prepare(s, "SELECT id FROM verdict_fingerprints WHERE fingerprint = ?1", &sel, err)) {
        store_finalize(ins);
        return -1;
    }
    store_bind_text(ins, 1, fingerprint);
    store_bind_text(sel, 1, fingerprint);
    int ok = store_step(ins) == STORE_DONE && store_step(sel) == STORE_ROW;
    *id = ok ? store_col_i64(sel, 0) : 0;
    int rc = ok ? 0 : store_fail(s, err, "cannot record the verdict's fingerprint");
    store_finalize(ins);
    store_finalize(sel);
    return rc;
}
