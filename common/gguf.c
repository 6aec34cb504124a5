/* gguf.c: the GGUF reader (see gguf.h). One bounds-checked reader serves both
 * a file (buffered pread over the header region only) and an in-memory prefix
 * (tests, fuzzing), so both walk the same parser. It reads the header, every
 * metadata value and every tensor info, keeps what the shape needs and skips
 * the rest. Not for deriving the shape (gguf_shape.c), not for split models
 * (gguf_split.c), not for reading tensor data, not for writing GGUF. */
#include "common/gguf_internal.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GGUF_DEFAULT_ALIGNMENT 32
#define MAX_TENSORS (1u << 20)   /* real models hold a few thousand */
#define MAX_KV (1u << 20)        /* real models hold a few dozen */
#define MAX_KEY_LEN 65535        /* keys and tensor names */
#define MAX_KEPT_STR 4096        /* longer string values are skipped, not kept */
#define MAX_KEPT_ARRAY 4096     /* integer arrays up to this length keep their max */
#define MAX_ARRAY_DEPTH 8
#define MAX_DIMS 4
#define READ_CHUNK ((size_t)256 * 1024)
/* The smallest encodings: a tensor info with no dimension and an empty name
 * (name length, n_dims, type, offset), and a metadata entry (key length, type,
 * one byte of value). Used to refuse counts the file cannot hold. */
#define MIN_TENSOR_INFO 24
#define MIN_KV 13

/* --- GGUF and ggml constants -------------------------------------------- */

/* Encoded size of each scalar value type; 0 for string and array. */
static const uint8_t vt_size[GGUF_VT_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

static int vt_is_int(uint64_t t)
{
    switch (t) {
    case GGUF_VT_U8: case GGUF_VT_I8: case GGUF_VT_U16: case GGUF_VT_I16:
    case GGUF_VT_U32: case GGUF_VT_I32: case GGUF_VT_U64: case GGUF_VT_I64:
        return 1;
    default:
        return 0;
    }
}

static int vt_is_signed(uint64_t t)
{
    return t == GGUF_VT_I8 || t == GGUF_VT_I16 || t == GGUF_VT_I32 || t == GGUF_VT_I64;
}

/* ggml tensor types: elements per block and bytes per block, as ggml's
 * type_traits (and gguf-py's GGML_QUANT_SIZES) define them. Ids 4, 5, 31-33
 * and 36-38 were removed from GGUF files; they and ids past the table are
 * refused as unknown. */
typedef struct ggml_type_info {
    const char *name;
    uint32_t blck;
    uint32_t size;
} ggml_type_info;

static const ggml_type_info ggml_types[] = {
    [0] = {"F32", 1, 4},         [1] = {"F16", 1, 2},
    [2] = {"Q4_0", 32, 18},      [3] = {"Q4_1", 32, 20},
    [6] = {"Q5_0", 32, 22},      [7] = {"Q5_1", 32, 24},
    [8] = {"Q8_0", 32, 34},      [9] = {"Q8_1", 32, 36},
    [10] = {"Q2_K", 256, 84},    [11] = {"Q3_K", 256, 110},
    [12] = {"Q4_K", 256, 144},   [13] = {"Q5_K", 256, 176},
    [14] = {"Q6_K", 256, 210},   [15] = {"Q8_K", 256, 292},
    [16] = {"IQ2_XXS", 256, 66}, [17] = {"IQ2_XS", 256, 74},
    [18] = {"IQ3_XXS", 256, 98}, [19] = {"IQ1_S", 256, 50},
    [20] = {"IQ4_NL", 32, 18},   [21] = {"IQ3_S", 256, 110},
    [22] = {"IQ2_S", 256, 82},   [23] = {"IQ4_XS", 256, 136},
    [24] = {"I8", 1, 1},         [25] = {"I16", 1, 2},
    [26] = {"I32", 1, 4},        [27] = {"I64", 1, 8},
    [28] = {"F64", 1, 8},        [29] = {"IQ1_M", 256, 56},
    [30] = {"BF16", 1, 2},       [34] = {"TQ1_0", 256, 54},
    [35] = {"TQ2_0", 256, 66},   [39] = {"MXFP4", 32, 17},
    [40] = {"NVFP4", 64, 36},    [41] = {"Q1_0", 128, 18},
};

static const ggml_type_info *ggml_type_get(uint32_t t)
{
    if (t >= LVD_ARRAY_LEN(ggml_types) || ggml_types[t].blck == 0)
        return NULL;
    return &ggml_types[t];
}

/* --- the bounds-checked reader ------------------------------------------ */

typedef struct rd {
    const char *name;     /* for messages */
    int fd;               /* file source, or -1 */
    const uint8_t *mem;   /* memory source, or NULL */
    uint64_t limit;       /* bytes the source holds */
    uint8_t *buf;         /* file source: one chunk of the file */
    size_t buf_len;
    uint64_t buf_off;
    uint64_t pos;
    char where[160];      /* what is being read, for messages */
    lvd_err *err;
    int failed;
} rd;

/* Records the first failure as "NAME: WHERE: detail"; returns -1. */
__attribute__((format(printf, 2, 3))) static int rd_fail(rd *r, const char *fmt, ...)
{
    if (r->failed)
        return -1;
    r->failed = 1;
    char detail[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (r->where[0])
        return lvd_errf(r->err, "%s: %s: %s", r->name, r->where, detail);
    return lvd_errf(r->err, "%s: %s", r->name, detail);
}

__attribute__((format(printf, 2, 3))) static void rd_where(rd *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->where, sizeof r->where, fmt, ap);
    va_end(ap);
}

static uint64_t rd_left(const rd *r)
{
    return r->limit - r->pos;
}

/* 0 when n more bytes exist at the current position. */
static int rd_check(rd *r, uint64_t n)
{
    if (r->failed)
        return -1;
    if (n > rd_left(r))
        return rd_fail(r, "truncated: needs %" PRIu64 " bytes at offset %" PRIu64
                          ", only %" PRIu64 " left",
                       n, r->pos, rd_left(r));
    return 0;
}

static int rd_fill(rd *r)
{
    size_t want = rd_left(r) < READ_CHUNK ? (size_t)rd_left(r) : READ_CHUNK;
    size_t got = 0;
    while (got < want) {
        ssize_t k = pread(r->fd, r->buf + got, want - got, (off_t)(r->pos + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return rd_fail(r, "read error at offset %" PRIu64 ": %s", r->pos + got,
                           strerror(errno));
        if (k == 0)
            return rd_fail(r, "truncated: the file shrank while it was read");
        got += (size_t)k;
    }
    r->buf_off = r->pos;
    r->buf_len = got;
    return 0;
}

static int rd_read(rd *r, void *dst, size_t n)
{
    if (rd_check(r, n) != 0)
        return -1;
    if (n == 0)
        return 0;
    if (!r->buf) {
        memcpy(dst, r->mem + r->pos, n);
        r->pos += n;
        return 0;
    }
    uint8_t *d = dst;
    while (n > 0) {
        if (r->pos < r->buf_off || r->pos >= r->buf_off + r->buf_len) {
            if (rd_fill(r) != 0)
                return -1;
        }
        size_t off = (size_t)(r->pos - r->buf_off);
        size_t k = r->buf_len - off < n ? r->buf_len - off : n;
        memcpy(d, r->buf + off, k);
        d += k;
        n -= k;
        r->pos += k;
    }
    return 0;
}

/* Skips n bytes without reading them (a later read refills the buffer). */
static int rd_skip(rd *r, uint64_t n)
{
    if (rd_check(r, n) != 0)
        return -1;
    r->pos += n;
    return 0;
}

/* Reads an n-byte little-endian unsigned integer (n <= 8). */
static int rd_uint(rd *r, size_t n, uint64_t *v)
{
    uint8_t b[8];
    if (rd_read(r, b, n) != 0)
        return -1;
    *v = 0;
    for (size_t i = n; i-- > 0;)
        *v = (*v << 8) | b[i];
    return 0;
}

/* Reads a GGUF string's length and checks that its bytes exist. */
static int rd_strlen(rd *r, uint64_t *len)
{
    if (rd_uint(r, 8, len) != 0)
        return -1;
    if (*len > rd_left(r))
        return rd_fail(r, "truncated or corrupt: a string of %" PRIu64 " bytes at offset %" PRIu64
                          " runs past the end (%" PRIu64 " bytes left)",
                       *len, r->pos - 8, rd_left(r));
    return 0;
}

/* Reads len string bytes into a fresh NUL-terminated string. */
static int rd_str_body(rd *r, uint64_t len, char **out)
{
    char *s = lvd_xmalloc((size_t)len + 1);
    if (rd_read(r, s, (size_t)len) != 0) {
        free(s);
        return -1;
    }
    s[len] = '\0';
    *out = s;
    return 0;
}

/* Reads a whole string (at most max bytes) into a fresh string. */
static int rd_strdup(rd *r, uint64_t max, const char *what, char **out)
{
    uint64_t len;
    if (rd_strlen(r, &len) != 0)
        return -1;
    if (len > max)
        return rd_fail(r, "%s of %" PRIu64 " bytes is longer than the limit of %" PRIu64, what,
                       len, max);
    return rd_str_body(r, len, out);
}

/* Skips n GGUF strings (a vocabulary: tens of thousands of them), reading
 * the lengths straight from the bytes at hand, the buffered chunk or the
 * memory, in one tight loop; a length that straddles the chunk's end, or a
 * string that does not fit, goes through rd_strlen, whose checks and
 * messages stay the only ones. */
static int rd_skip_strings(rd *r, uint64_t n)
{
    uint64_t i = 0;
    while (i < n) {
        if (r->failed)
            return -1;
        const uint8_t *base = r->mem; /* the byte at file offset p is base[p - off] */
        uint64_t off = 0, end = r->limit;
        if (r->buf) {
            if ((r->pos < r->buf_off || r->pos >= r->buf_off + r->buf_len) && rd_left(r) >= 8 && rd_fill(r) != 0)
                return -1;
            base = r->buf, off = r->buf_off, end = r->buf_off + r->buf_len;
        }
        uint64_t pos = r->pos;
        if (pos >= off && end >= 8) {
            /* a string ends within the source: pos + 8 + len <= limit */
            uint64_t last = end - 8, limit = r->limit;
            for (; i < n && pos <= last; i++) {
                uint64_t len;
                memcpy(&len, base + (pos - off), sizeof len);
                len = le64toh(len);
                if (len > limit - pos - 8)
                    break;
                pos += 8 + len;
            }
            r->pos = pos;
        }
        if (i == n)
            break;
        uint64_t len;
        if (rd_strlen(r, &len) != 0 || rd_skip(r, len) != 0)
            return -1;
        i++;
    }
    return 0;
}

/* --- metadata ------------------------------------------------------------ */

/* Reads one value of type t. With k, integers (and the largest element of an
 * integer array) and short strings are kept in k; without, they are skipped. */
static int read_value(rd *r, uint64_t t, int depth, gguf_kv *k)
{
    if (t >= GGUF_VT_COUNT)
        return rd_fail(r, "unknown metadata value type %" PRIu64, t);
    if (t == GGUF_VT_STRING) {
        uint64_t len;
        if (rd_strlen(r, &len) != 0)
            return -1;
        if (k && len <= MAX_KEPT_STR)
            return rd_str_body(r, len, &k->str);
        return rd_skip(r, len);
    }
    if (t == GGUF_VT_ARRAY) {
        if (depth >= MAX_ARRAY_DEPTH)
            return rd_fail(r, "arrays nested deeper than %d levels", MAX_ARRAY_DEPTH);
        uint64_t et, n;
        if (rd_uint(r, 4, &et) != 0 || rd_uint(r, 8, &n) != 0)
            return -1;
        if (et >= GGUF_VT_COUNT)
            return rd_fail(r, "unknown array element type %" PRIu64, et);
        /* string: 8-byte length; array: 4-byte type and 8-byte count */
        uint64_t min = vt_size[et] ? vt_size[et] : (et == GGUF_VT_STRING ? 8 : 12);
        if (n > rd_left(r) / min)
            return rd_fail(r, "truncated or corrupt: an array of %" PRIu64 " elements of at least %"
                              PRIu64 " bytes does not fit in the %" PRIu64 " bytes left",
                           n, min, rd_left(r));
        /* per-layer integer arrays are short; vocabulary arrays are skipped */
        int keep = k && (vt_is_int(et) || et == GGUF_VT_BOOL) && n <= MAX_KEPT_ARRAY;
        if (k)
            k->n_arr = (size_t)n;
        if (vt_size[et] && !keep)
            return rd_skip(r, n * min);
        if (et == GGUF_VT_STRING)
            return rd_skip_strings(r, n);
        if (keep) {
            k->has_int = n > 0;
            k->u = 0;
            k->arr = lvd_xcalloc(n ? (size_t)n : 1, sizeof *k->arr);
        }
        for (uint64_t i = 0; i < n; i++) {
            gguf_kv e = {0};
            if (read_value(r, et, depth + 1, keep ? &e : NULL) != 0)
                return -1;
            if (keep) {
                k->has_int &= e.has_int;
                if (e.u > k->u)
                    k->u = e.u;
                k->arr[i] = e.u > UINT32_MAX ? UINT32_MAX : (uint32_t)e.u;
            }
        }
        return 0;
    }
    uint64_t v;
    if (rd_uint(r, vt_size[t], &v) != 0)
        return -1;
    if (k && (vt_is_int(t) || (t == GGUF_VT_BOOL && depth > 0))) { /* bools: array elements */
        unsigned bits = 8u * vt_size[t];
        int negative = vt_is_signed(t) && (v >> (bits - 1)) & 1;
        k->has_int = !negative;
        k->u = negative ? 0 : v;
    } else if (k && t == GGUF_VT_BOOL) {
        k->u = v != 0; /* a bool: its value, not an integer (has_int stays 0) */
    }
    return 0;
}

static int kv_cmp(const void *a, const void *b)
{
    return strcmp(((const gguf_kv *)a)->key, ((const gguf_kv *)b)->key);
}

const gguf_kv *gguf_kv_find(const gguf_file *f, const char *key)
{
    gguf_kv probe = {.key = (char *)key};
    return bsearch(&probe, f->kvs, f->n_kvs, sizeof *f->kvs, kv_cmp);
}

/* --- tensor infos ------------------------------------------------------- */

static int str_ptr_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void gguf_file_free(gguf_file *st)
{
    for (size_t i = 0; i < st->n_kvs; i++) {
        free(st->kvs[i].key);
        free(st->kvs[i].str);
        free(st->kvs[i].arr);
    }
    free(st->kvs);
    for (size_t i = 0; i < st->n_ts; i++)
        free(st->ts[i].name);
    free(st->ts);
    memset(st, 0, sizeof *st);
}

static int read_header(rd *r, gguf_shape *out)
{
    rd_where(r, "header");
    uint8_t magic[4];
    if (rd_left(r) < 4)
        return rd_fail(r, "not a GGUF file: truncated at %" PRIu64 " bytes, before the magic",
                       rd_left(r));
    if (rd_read(r, magic, 4) != 0)
        return -1;
    if (memcmp(magic, "GGUF", 4) != 0)
        return rd_fail(r, "not a GGUF file (no \"GGUF\" magic at offset 0)");
    uint64_t version;
    if (rd_uint(r, 4, &version) != 0)
        return -1;
    if (version == 1)
        return rd_fail(r, "GGUF version 1 is not supported (only versions 2 and 3)");
    if (version != 2 && version != 3) {
        if ((version & 0xffff) == 0 && __builtin_bswap32((uint32_t)version) <= 3)
            return rd_fail(r, "big-endian GGUF is not supported");
        return rd_fail(r, "unsupported GGUF version %" PRIu64 " (only versions 2 and 3)", version);
    }
    out->version = (uint32_t)version;
    if (rd_uint(r, 8, &out->n_tensors) != 0 || rd_uint(r, 8, &out->n_kv) != 0)
        return -1;
    if (out->n_tensors > MAX_TENSORS)
        return rd_fail(r, "implausible tensor count %" PRIu64 " (limit %u)", out->n_tensors,
                       MAX_TENSORS);
    if (out->n_kv > MAX_KV)
        return rd_fail(r, "implausible metadata count %" PRIu64 " (limit %u)", out->n_kv, MAX_KV);
    /* rd_left >= 0 and the products stay below 2^64: counts are capped above */
    if (out->n_tensors * MIN_TENSOR_INFO + out->n_kv * MIN_KV > rd_left(r))
        return rd_fail(r, "truncated or corrupt: %" PRIu64 " tensors and %" PRIu64
                          " metadata entries cannot fit in the %" PRIu64 " bytes left",
                       out->n_tensors, out->n_kv, rd_left(r));
    return 0;
}

static int read_metadata(rd *r, const gguf_shape *out, gguf_file *st)
{
    st->kvs = lvd_xcalloc(out->n_kv ? (size_t)out->n_kv : 1, sizeof *st->kvs);
    for (uint64_t i = 0; i < out->n_kv; i++) {
        rd_where(r, "metadata entry %" PRIu64, i);
        gguf_kv *k = &st->kvs[st->n_kvs];
        if (rd_strdup(r, MAX_KEY_LEN, "key", &k->key) != 0)
            return -1;
        st->n_kvs++;
        rd_where(r, "metadata '%.64s'", k->key);
        uint64_t t;
        if (rd_uint(r, 4, &t) != 0)
            return -1;
        k->type = (uint32_t)t;
        if (read_value(r, t, 0, k) != 0)
            return -1;
    }
    rd_where(r, "metadata");
    qsort(st->kvs, st->n_kvs, sizeof *st->kvs, kv_cmp);
    for (size_t i = 1; i < st->n_kvs; i++)
        if (strcmp(st->kvs[i - 1].key, st->kvs[i].key) == 0)
            return rd_fail(r, "duplicate key '%.64s'", st->kvs[i].key);
    return 0;
}

/* general.alignment: a non-zero power of two stored as uint32, default 32. */
static int alignment_of(rd *r, const gguf_file *st, uint64_t *align)
{
    *align = GGUF_DEFAULT_ALIGNMENT;
    const gguf_kv *k = gguf_kv_find(st, "general.alignment");
    if (!k)
        return 0;
    if (k->type != GGUF_VT_U32 || k->u == 0 || (k->u & (k->u - 1)) != 0)
        return rd_fail(r, "general.alignment must be a non-zero power of two stored as uint32");
    *align = k->u;
    return 0;
}

/* Reads one tensor info into t; *end is where its data ends, relative to the
 * start of the data section. */
static int read_tensor_info(rd *r, uint64_t i, uint64_t align, gguf_tinfo *t, uint64_t *end)
{
    rd_where(r, "tensor info %" PRIu64, i);
    if (rd_strdup(r, MAX_KEY_LEN, "name", &t->name) != 0)
        return -1;
    rd_where(r, "tensor '%.64s'", t->name);
    uint64_t n_dims, ne = 1, dims[MAX_DIMS] = {1, 1, 1, 1};
    if (rd_uint(r, 4, &n_dims) != 0)
        return -1;
    if (n_dims > MAX_DIMS)
        return rd_fail(r, "%" PRIu64 " dimensions (at most %d)", n_dims, MAX_DIMS);
    for (uint64_t d = 0; d < n_dims; d++) {
        if (rd_uint(r, 8, &dims[d]) != 0)
            return -1;
        if (dims[d] > INT64_MAX)
            return rd_fail(r, "dimension %" PRIu64 " is %" PRIu64 " (negative as int64)", d,
                           dims[d]);
        if (__builtin_mul_overflow(ne, dims[d], &ne) || ne > INT64_MAX)
            return rd_fail(r, "element count overflows (dimensions %" PRIu64 " x ...)", dims[0]);
    }
    uint64_t type, offset;
    if (rd_uint(r, 4, &type) != 0)
        return -1;
    const ggml_type_info *ti = ggml_type_get((uint32_t)type);
    if (type > UINT32_MAX || !ti)
        return rd_fail(r, "unknown ggml type %" PRIu64, type);
    if (dims[0] % ti->blck != 0)
        return rd_fail(r, "row of %" PRIu64 " elements is not a multiple of the %s block size %u",
                       dims[0], ti->name, ti->blck);
    if (__builtin_mul_overflow(ne / ti->blck, (uint64_t)ti->size, &t->bytes))
        return rd_fail(r, "byte size overflows");
    memcpy(t->ne, dims, sizeof t->ne);
    if (rd_uint(r, 8, &offset) != 0)
        return -1;
    if (offset % align != 0)
        return rd_fail(r, "data offset %" PRIu64 " is not a multiple of the alignment %" PRIu64,
                       offset, align);
    t->offset = offset;
    if (__builtin_add_overflow(offset, t->bytes, end))
        return rd_fail(r, "data offset %" PRIu64 " plus size overflows", offset);
    return 0;
}

/* Reads every tensor info, then checks what ggml's own reader checks: tensor
 * data lies inside the file (else "truncated"), tensors are stored in order,
 * each padded to the alignment, and names are unique. */
static int read_tensor_infos(rd *r, uint64_t file_size, gguf_shape *out, gguf_file *st)
{
    uint64_t align, next = 0, max_end = 0, misplaced_want = 0;
    size_t max_i = 0, misplaced = SIZE_MAX;
    if (alignment_of(r, st, &align) != 0)
        return -1;
    st->ts = lvd_xcalloc(out->n_tensors ? (size_t)out->n_tensors : 1, sizeof *st->ts);
    for (uint64_t i = 0; i < out->n_tensors; i++) {
        uint64_t end = 0;
        gguf_tinfo *t = &st->ts[st->n_ts];
        int rc = read_tensor_info(r, i, align, t, &end);
        if (t->name)
            st->n_ts++;
        if (rc != 0)
            return -1;
        if (__builtin_add_overflow(out->tensor_bytes, t->bytes, &out->tensor_bytes))
            return rd_fail(r, "total tensor size overflows");
        if (misplaced == SIZE_MAX && end - t->bytes != next) {
            misplaced = st->n_ts - 1;
            misplaced_want = next;
        }
        if (__builtin_add_overflow(end, (align - end % align) % align, &next))
            return rd_fail(r, "data offset plus padded size overflows");
        if (end > max_end) {
            max_end = end;
            max_i = st->n_ts - 1;
        }
    }
    rd_where(r, "tensor data");
    uint64_t pad = (align - r->pos % align) % align;
    out->data_offset = r->pos + pad;
    if (out->data_offset > file_size || max_end > file_size - out->data_offset)
        return rd_fail(r, "truncated: tensor '%.64s' ends at byte %" PRIu64
                          " but the file has %" PRIu64 " bytes",
                       st->n_ts ? st->ts[max_i].name : "", out->data_offset + max_end,
                       file_size);
    if (misplaced != SIZE_MAX)
        return rd_fail(r, "tensor '%.64s' has data offset %" PRIu64 ", expected %" PRIu64
                          " (tensors are stored in order, each padded to the alignment)",
                       st->ts[misplaced].name, st->ts[misplaced].offset, misplaced_want);
    char **names = lvd_xcalloc(st->n_ts ? st->n_ts : 1, sizeof *names);
    for (size_t i = 0; i < st->n_ts; i++)
        names[i] = st->ts[i].name;
    qsort(names, st->n_ts, sizeof *names, str_ptr_cmp);
    int rc = 0;
    for (size_t i = 1; i < st->n_ts && rc == 0; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            rc = rd_fail(r, "duplicate tensor name '%.64s'", names[i]);
    free(names);
    return rc;
}

/* The one parser both entry points share. */
static int parse(rd *r, uint64_t file_size, gguf_file *f)
{
    memset(f, 0, sizeof *f);
    if (read_header(r, &f->hdr) == 0 && read_metadata(r, &f->hdr, f) == 0 &&
        read_tensor_infos(r, file_size, &f->hdr, f) == 0)
        return 0;
    gguf_file_free(f);
    return -1;
}

int gguf_file_parse(const void *buf, size_t len, uint64_t file_size, const char *name,
                    gguf_file *out, lvd_err *err)
{
    rd r = {.name = name ? name : "(memory)", .fd = -1, .mem = buf, .err = err};
    r.limit = len < file_size ? len : file_size;
    if (!buf)
        r.limit = 0;
    return parse(&r, file_size, out);
}

int gguf_file_read(const char *path, gguf_file *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lvd_errf(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return lvd_errf(err, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return lvd_errf(err, "%s: not a regular file", path);
    }
    rd r = {.name = path, .fd = fd, .limit = (uint64_t)sb.st_size, .err = err};
    r.buf = lvd_xmalloc(READ_CHUNK);
    int rc = parse(&r, (uint64_t)sb.st_size, out);
    free(r.buf);
    close(fd);
    return rc;
}

/* One file's shape: its own metadata and tensors. */
static int shape_of(gguf_file *f, int rc, const char *name, gguf_shape *out, lvd_err *err)
{
    if (rc == 0)
        rc = gguf_shape_derive(f, f->ts, f->n_ts, name, out, err);
    gguf_file_free(f);
    if (rc != 0) {
        memset(out, 0, sizeof *out);
        out->file_type = -1;
    }
    return rc;
}

int gguf_parse_shape(const void *buf, size_t len, uint64_t file_size, const char *name,
                     gguf_shape *out, lvd_err *err)
{
    gguf_file f;
    int rc = gguf_file_parse(buf, len, file_size, name, &f, err);
    return shape_of(&f, rc, name ? name : "(memory)", out, err);
}

int gguf_read_shape(const char *path, gguf_shape *out, lvd_err *err)
{
    gguf_file f;
    int rc = gguf_file_read(path, &f, err);
    return shape_of(&f, rc, path, out, err);
}
