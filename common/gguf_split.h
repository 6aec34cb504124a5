/* gguf_split.h: models stored as several GGUF files, as llama.cpp's gguf-split
 * writes them: NAME-00001-of-00003.gguf, NAME-00002-of-00003.gguf, ... (the
 * name "%s-%05d-of-%05d.gguf", numbered from 1), each shard carrying the keys
 * split.no (from 0), split.count and split.tensors.count (the whole model's),
 * shard 1 the model's metadata. llama.cpp loads a split model from its first
 * shard and finds the others by name. Here: which files make up a model, and
 * the model's shape summed over them, each shard checked to belong. */
#ifndef LVD_GGUF_SPLIT_H
#define LVD_GGUF_SPLIT_H

#include "common/gguf.h"

/* A shard's name: path = prefix + "-NNNNN-of-CCCCC.gguf". */
typedef struct gguf_split_name {
    char *prefix;     /* malloc'd */
    unsigned no;      /* NNNNN, from 1 */
    unsigned count;   /* CCCCC */
} gguf_split_name;

/* 1 when path is named as shard no of count (1 <= no <= count), filling *out
 * (free out->prefix); 0 when it is not named as a shard; -1 when the number is
 * 0 or past the count, with err naming path. */
int gguf_split_parse_name(const char *path, gguf_split_name *out, lvd_err *err);
/* prefix-%05u-of-%05u.gguf; malloc'd. */
char *gguf_split_shard_path(const char *prefix, unsigned no, unsigned count);
/* The path llama.cpp must be given for the model path belongs to: the first
 * shard's when path names a shard of several, else path itself; malloc'd. */
char *gguf_split_first(const char *path);

/* The files of the model path names, in order, as spelt from path (not
 * resolved): path alone when it is no shard's name (or NAME-00001-of-00001),
 * else every shard 1..count, each a regular file. A missing shard, and a file
 * beside them numbered past the count (NAME-00004-of-00003.gguf), are errors
 * naming that file. 0, or -1 with err; free with lvd_strv_free. */
int gguf_split_files(const char *path, char ***files, size_t *n, lvd_err *err);

/* The shape of the model stored in files[0..n) (gguf_split_files' list): the
 * metadata of the first, the tensors of all. Each file must belong: with n 1,
 * no split.count above 1; with n > 1, split.count n, split.no its index and the
 * same split.tensors.count in each, equal to the tensors the shards hold, no
 * tensor in two shards. 0, or -1 with err naming the file that is wrong. */
int gguf_read_split_shape(char *const *files, size_t n, gguf_shape *out, lvd_err *err);

#endif
