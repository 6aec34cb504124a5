/* gguf_internal.h: what the GGUF reader (gguf.c) hands the shape derivation
 * (gguf_shape.c) and the split-model reader (gguf_split.c): one file's kept
 * metadata and every tensor info. Not a public interface: callers outside
 * common/gguf*.c use gguf.h and gguf_split.h. */
#ifndef LVD_GGUF_INTERNAL_H
#define LVD_GGUF_INTERNAL_H

#include "common/gguf.h"

/* GGUF metadata value types. */
enum gguf_vtype {
    GGUF_VT_U8, GGUF_VT_I8, GGUF_VT_U16, GGUF_VT_I16, GGUF_VT_U32, GGUF_VT_I32, GGUF_VT_F32,
    GGUF_VT_BOOL, GGUF_VT_STRING, GGUF_VT_ARRAY, GGUF_VT_U64, GGUF_VT_I64, GGUF_VT_F64,
    GGUF_VT_COUNT
};

typedef struct gguf_kv {
    char *key;
    uint32_t type;
    int has_int;     /* a non-negative integer, or a short array of only such */
    uint64_t u;      /* that integer; for arrays the largest element; a bool's 0 or 1 */
    char *str;       /* string values up to 4096 bytes, else NULL */
    uint32_t *arr;   /* the elements of a short integer or bool array (each clamped to
                        UINT32_MAX, a negative one 0), else NULL */
    size_t n_arr;    /* how many (also for an array not kept: a vocabulary's length) */
} gguf_kv;

typedef struct gguf_tinfo {
    char *name;
    int64_t blk;         /* block index of "blk.N.", -1 outside blocks (gguf_shape_derive) */
    uint64_t offset;     /* relative to the data section */
    uint64_t bytes;
    uint64_t ne[4];      /* the dimensions, llama.cpp's order (ne[0] is a row) */
    uint64_t exp_bytes;  /* bytes of routed-expert tensors ("*_exps*") (gguf_shape_derive) */
    size_t file;         /* which file of several (gguf_split.c), else 0 */
} gguf_tinfo;

/* One parsed file: hdr holds version, n_tensors, n_kv, tensor_bytes and
 * data_offset; kvs are sorted by key. */
typedef struct gguf_file {
    gguf_shape hdr;
    gguf_kv *kvs;
    size_t n_kvs;
    gguf_tinfo *ts;
    size_t n_ts;
} gguf_file;

/* Parses path's header, metadata and tensor infos into *out (free with
 * gguf_file_free either way). 0 or -1 with err naming path. */
int gguf_file_read(const char *path, gguf_file *out, lvd_err *err);
/* The same over an in-memory prefix of a file of file_size bytes. */
int gguf_file_parse(const void *buf, size_t len, uint64_t file_size, const char *name,
                    gguf_file *out, lvd_err *err);
void gguf_file_free(gguf_file *f);
/* The metadata entry key of f, or NULL. */
const gguf_kv *gguf_kv_find(const gguf_file *f, const char *key);

/* The shape of a model whose metadata is meta's and whose tensors are
 * ts[0..n) (meta's own, or every shard's): hyperparameters from meta, bytes
 * summed per block over ts (reordered). 0, or -1 with err naming name. */
int gguf_shape_derive(const gguf_file *meta, gguf_tinfo *ts, size_t n, const char *name,
                      gguf_shape *out, lvd_err *err);

#endif
