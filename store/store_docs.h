/* store_docs.h: the large documents of the store kept compact (schema step
 * 17), for store_verdicts.c, store_pins.c, the merge and the fallback copy.
 *
 * A verdict's statistics (verdicts.stats_json) and a pin decision's details
 * (pin_decisions.details_json) are JSON of 10 to 40 KB whose keys repeat in
 * every arm and comparison. On SQLite a document of STORE_DOC_MIN bytes or
 * more is stored as a BLOB: the byte 'z', its length as 4 bytes little
 * endian, then the text deflated by zlib; a shorter one, and every row
 * written before step 17 ran, stays TEXT, and both read back as the text
 * written, byte for byte. PostgreSQL keeps them TEXT: it compresses a value
 * over about 2 KB itself (TOAST). A verdict's fingerprint of the engines
 * (the same in every verdict until an engine changes) is stored once in
 * verdict_fingerprints, verdicts.fingerprint_id naming it. */
#ifndef LVD_STORE_DOCS_H
#define LVD_STORE_DOCS_H

#include "store/store_internal.h"

#include <stddef.h>

/* Shorter documents stay text: deflating them saves nothing. */
#define STORE_DOC_MIN 256

/* The SQL expression of a verdict's fingerprint text in a query on verdicts. */
#define STORE_FINGERPRINT_SQL \
    "(SELECT f.fingerprint FROM verdict_fingerprints f WHERE f.id = verdicts.fingerprint_id)"

/* text packed (malloc'd, *len bytes), or NULL when it stays text (NULL,
 * shorter than STORE_DOC_MIN, or zlib failed). */
unsigned char *store_doc_pack(const char *text, size_t *len);
/* The text of a packed document (malloc'd), or NULL when blob is not one. */
char *store_doc_unpack(const void *blob, size_t len);

/* Whether table.column holds a document (copied with store_col_doc and
 * store_bind_doc, never as plain text). */
int store_doc_column(const char *table, const char *column);

/* The id of fingerprint in verdict_fingerprints, recorded when new; *id 0
 * for NULL. 0, or -1 with err. */
int store_fingerprint_id(store *s, const char *fingerprint, int64_t *id, lvd_err *err);

#endif
