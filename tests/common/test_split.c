/* test_split.c: split models (NAME-00001-of-00003.gguf ...) as one artifact.
 * The shards are made here from a real test model by a small GGUF splitter
 * that lays them out as llama.cpp's gguf-split does: every shard carries
 * split.no (u16, from 0), split.count (u16) and split.tensors.count (i32) and
 * its share of the tensors; shard 1 also the model's metadata. Covered: the
 * summed shape equals the single file's, the identity's definition and that
 * every shard is in it, the shard cache answering without reading a byte,
 * and the exact error of a missing, extra or foreign shard and of counts that
 * disagree. With LVD_SPLIT_KEEP=DIR the shards of small-llama are also left
 * in DIR (for trying them on a real llama.cpp by hand). */
#include "common/gguf_split.h"
#include "common/sha256.h"
#include "store/identify.h"
#include "tests/support/testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- a GGUF splitter, for the tests -------------------------------------- */

#define ALIGN 32

/* The parts of a source model the splitter copies. */
typedef struct src {
    unsigned char *b;
    size_t len;
    uint64_t n_tensors, n_kv;
    size_t kv_begin, kv_end;       /* the metadata entries, copied raw */
    size_t *ti_begin, *ti_end;     /* each tensor info, without its offset */
    uint64_t *off;                 /* each tensor's data offset */
    size_t data;                   /* where tensor data starts */
} src;

static uint64_t rd_u(const src *s, size_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | s->b[*p + (size_t)i];
    *p += (size_t)n;
    return v;
}

static void skip_value(const src *s, size_t *p, uint32_t t)
{
    static const int size[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    if (t == 8) {
        *p += rd_u(s, p, 8);
    } else if (t == 9) {
        uint32_t et = (uint32_t)rd_u(s, p, 4);
        uint64_t n = rd_u(s, p, 8);
        for (uint64_t i = 0; i < n; i++)
            skip_value(s, p, et);
    } else {
        *p += (size_t)size[t];
    }
}

static void src_load(src *s, const char *path)
{
    memset(s, 0, sizeof *s);
    s->b = (unsigned char *)tu_read(path, &s->len);
    size_t p = 8;
    s->n_tensors = rd_u(s, &p, 8);
    s->n_kv = rd_u(s, &p, 8);
    s->kv_begin = p;
    for (uint64_t i = 0; i < s->n_kv; i++) {
        p += rd_u(s, &p, 8);
        skip_value(s, &p, (uint32_t)rd_u(s, &p, 4));
    }
    s->kv_end = p;
    s->ti_begin = lvd_xcalloc(s->n_tensors, sizeof *s->ti_begin);
    s->ti_end = lvd_xcalloc(s->n_tensors, sizeof *s->ti_end);
    s->off = lvd_xcalloc(s->n_tensors, sizeof *s->off);
    for (uint64_t i = 0; i < s->n_tensors; i++) {
        s->ti_begin[i] = p;
        p += rd_u(s, &p, 8);
        p += 8 * rd_u(s, &p, 4) + 4;
        s->ti_end[i] = p;
        s->off[i] = rd_u(s, &p, 8);
    }
    s->data = (p + ALIGN - 1) / ALIGN * ALIGN;
}

static void src_free(src *s)
{
    free(s->b);
    free(s->ti_begin);
    free(s->ti_end);
    free(s->off);
}

/* Tensor i's data as laid out in the source, padding included. */
static size_t extent(const src *s, uint64_t i)
{
    uint64_t end = i + 1 < s->n_tensors ? s->off[i + 1] : s->len - s->data;
    return (size_t)(end - s->off[i]);
}

static void put_u(lvd_sb *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        lvd_sb_addc(b, (char)(v >> (8 * i)));
}

static void put_key(lvd_sb *b, const char *key, uint32_t type)
{
    put_u(b, strlen(key), 8);
    lvd_sb_add(b, key, strlen(key));
    put_u(b, type, 4);
}

/* What one shard says about itself; keys < 0 are left out. */
typedef struct shard_keys {
    int no, count, tensors;
} shard_keys;

/* Writes tensors [a, b) of s as a shard at path; with meta, the source's
 * metadata too. */
static void write_shard(const src *s, const char *path, uint64_t a, uint64_t b, int meta,
                        shard_keys k)
{
    lvd_sb o = {0};
    lvd_sb_add(&o, "GGUF", 4);
    put_u(&o, 3, 4);
    put_u(&o, b - a, 8);
    put_u(&o, (meta ? s->n_kv : 0) + (k.no >= 0) + (k.count >= 0) + (k.tensors >= 0), 8);
    if (meta)
        lvd_sb_add(&o, (const char *)s->b + s->kv_begin, s->kv_end - s->kv_begin);
    if (k.no >= 0)
        put_key(&o, "split.no", 2), put_u(&o, (uint64_t)k.no, 2);
    if (k.count >= 0)
        put_key(&o, "split.count", 2), put_u(&o, (uint64_t)k.count, 2);
    if (k.tensors >= 0)
        put_key(&o, "split.tensors.count", 5), put_u(&o, (uint64_t)k.tensors, 4);
    uint64_t off = 0;
    for (uint64_t i = a; i < b; i++) {
        lvd_sb_add(&o, (const char *)s->b + s->ti_begin[i], s->ti_end[i] - s->ti_begin[i]);
        put_u(&o, off, 8);
        off += extent(s, i);
    }
    while (o.len % ALIGN)
        lvd_sb_addc(&o, 0);
    for (uint64_t i = a; i < b; i++)
        lvd_sb_add(&o, (const char *)s->b + s->data + s->off[i], extent(s, i));
    tu_write(path, o.buf, o.len);
    lvd_sb_free(&o);
}

/* Tensor range of shard k of n: the tensors in n near-equal runs. */
static uint64_t cut(const src *s, int k, int n)
{
    return s->n_tensors * (uint64_t)k / (uint64_t)n;
}

/* Splits the model file into n shards prefix-0000K-of-0000N.gguf. */
static void split_model(const char *file, const char *prefix, int n)
{
    src s;
    char *path = tu_model(file);
    src_load(&s, path);
    free(path);
    for (int k = 0; k < n; k++) {
        char *shard = gguf_split_shard_path(prefix, (unsigned)k + 1, (unsigned)n);
        write_shard(&s, shard, cut(&s, k, n), cut(&s, k + 1, n), k == 0,
                    (shard_keys){k, n, (int)s.n_tensors});
        free(shard);
    }
    src_free(&s);
}

/* --- fixture: small-llama in 3 shards ------------------------------------- */

typedef struct fx {
    char *dir;        /* resolved */
    char *prefix;     /* dir/small */
    char *shard[3];
    store *s;
} fx;

static int setup(void **state)
{
    fx *f = lvd_xcalloc(1, sizeof *f);
    char *tmp = tu_tmpdir();
    f->dir = realpath(tmp, NULL);
    free(tmp);
    f->prefix = lvd_xasprintf("%s/small", f->dir);
    split_model("small-llama-q8_0.gguf", f->prefix, 3);
    for (unsigned i = 0; i < 3; i++)
        f->shard[i] = gguf_split_shard_path(f->prefix, i + 1, 3);
    f->s = tu_store(f->dir);
    const char *keep = getenv("LVD_SPLIT_KEEP");
    for (int i = 0; keep && *keep && i < 3; i++) {
        char *to = lvd_xasprintf("%s/%s", keep, lvd_base_name(f->shard[i]));
        tu_copy(f->shard[i], to, 0644);
        free(to);
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    store_close(f->s);
    for (int i = 0; i < 3; i++)
        free(f->shard[i]);
    free(f->prefix);
    tu_tmpdir_free(f->dir);
    free(f);
    return 0;
}

static void file_sha(const char *path, char hex[LVD_SHA256_HEX_LEN + 1])
{
    lvd_err err;
    if (lvd_sha256_file(path, hex, NULL, &err) != 0)
        fail_msg("%s", err.msg);
}

/* The identity as docs/store.md defines it, computed here from the shard files. */
static void expected_identity(fx *f, char out[LVD_SHA256_HEX_LEN + 1])
{
    lvd_sb lines = {0};
    for (int i = 0; i < 3; i++) {
        char hex[LVD_SHA256_HEX_LEN + 1];
        file_sha(f->shard[i], hex);
        lvd_sb_addf(&lines, "%s\n", hex);
    }
    lvd_sha256 *h = lvd_sha256_new();
    lvd_sha256_update(h, lines.buf, lines.len);
    lvd_sha256_final(h, out);
    lvd_sb_free(&lines);
}

static int identify_ok(fx *f, const char *path, store_artifact *a)
{
    int hashed = -1;
    lvd_err err;
    if (store_identify(f->s, path, 0, a, &hashed, &err) != 0)
        fail_msg("%s", err.msg);
    return hashed;
}

/* store_identify fails with exactly msg, and leaves the store without an
 * artifact. store_identify_cached, which only stats files, fails the same
 * way on a missing or extra shard (by_name), else cannot answer (1). */
static void expect_error(fx *f, const char *path, int by_name, const char *msg)
{
    store_artifact a;
    lvd_err err;
    assert_int_equal(store_identify(f->s, path, 0, &a, NULL, &err), -1);
    assert_string_equal(err.msg, msg);
    assert_int_equal(store_identify_cached(f->s, path, &a, &err), by_name ? -1 : 1);
    if (by_name)
        assert_string_equal(err.msg, msg);
    store_artifact *list;
    size_t n;
    assert_int_equal(store_artifact_list(f->s, &list, &n, &err), 0);
    assert_int_equal(n, 0);
    store_artifact_list_free(list, n);
}

/* --- shape ----------------------------------------------------------------- */

static void test_shape_sums_shards(void **state)
{
    fx *f = *state;
    char *single = tu_model("small-llama-q8_0.gguf");
    gguf_shape one, sum;
    lvd_err err;
    assert_int_equal(gguf_read_shape(single, &one, &err), 0);
    assert_int_equal(gguf_read_split_shape(f->shard, 3, &sum, &err), 0);
    /* each shard alone holds about a third of the weights */
    gguf_shape first;
    assert_int_equal(gguf_read_shape(f->shard[0], &first, &err), 0);
    assert_true(first.tensor_bytes < one.tensor_bytes / 2);
    assert_int_equal(sum.tensor_bytes, 20550656);
    assert_int_equal(sum.non_block_bytes, 17409024);
    /* every field the single file's, but for the first shard's header:
     * three more keys (split.*), so another data offset */
    gguf_shape want;
    memcpy(&want, &one, sizeof want);
    want.n_kv = one.n_kv + 3;
    assert_int_equal(first.n_kv, want.n_kv);
    want.data_offset = first.data_offset;
    assert_memory_equal(&sum, &want, sizeof want);

    /* identified: the artifact holds the summed shape and every shard's size */
    store_artifact a;
    assert_int_equal(identify_ok(f, f->shard[0], &a), 1);
    assert_int_equal(a.shape.tensor_bytes, one.tensor_bytes);
    assert_int_equal(a.shape.non_block_bytes, one.non_block_bytes);
    assert_int_equal(a.shape.block_bytes, one.block_bytes);
    struct stat sb;
    int64_t size = 0;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(stat(f->shard[i], &sb), 0);
        size += sb.st_size;
    }
    assert_int_equal(a.size, size);
    store_artifact_free(&a);
    free(single);
}

/* --- identity -------------------------------------------------------------- */

static void test_identity_covers_every_shard(void **state)
{
    fx *f = *state;
    char want[LVD_SHA256_HEX_LEN + 1], first[LVD_SHA256_HEX_LEN + 1];
    expected_identity(f, want);
    file_sha(f->shard[0], first);
    store_artifact a;
    assert_int_equal(identify_ok(f, f->shard[0], &a), 1);
    assert_string_equal(a.sha256, want);
    assert_string_not_equal(a.sha256, first);
    assert_string_equal(a.last_path, f->shard[0]);
    store_artifact_free(&a);

    /* naming shard 2 names the same model; its path is still the first shard's */
    assert_int_equal(identify_ok(f, f->shard[1], &a), 0);
    assert_string_equal(a.sha256, want);
    assert_string_equal(a.last_path, f->shard[0]);
    store_artifact_free(&a);
    char *first_path = gguf_split_first(f->shard[2]);
    assert_string_equal(first_path, f->shard[0]);
    free(first_path);

    /* without a store: the same identity */
    char bytes[LVD_SHA256_HEX_LEN + 1];
    lvd_err err;
    assert_int_equal(store_identify_bytes(f->shard[2], bytes, &err), 0);
    assert_string_equal(bytes, want);

    /* a changed byte in any shard is another artifact */
    char seen[4][LVD_SHA256_HEX_LEN + 1];
    memcpy(seen[0], want, sizeof seen[0]);
    for (int i = 0; i < 3; i++) {
        struct stat sb;
        assert_int_equal(stat(f->shard[i], &sb), 0);
        int fd = open(f->shard[i], O_WRONLY);
        assert_true(fd >= 0);
        assert_int_equal(pwrite(fd, "\x5a", 1, sb.st_size - 1), 1);
        close(fd);
        assert_int_equal(identify_ok(f, f->shard[0], &a), 1);
        memcpy(seen[i + 1], a.sha256, sizeof seen[0]);
        expected_identity(f, want);
        assert_string_equal(a.sha256, want);
        for (int j = 0; j <= i; j++)
            assert_string_not_equal(seen[i + 1], seen[j]);
        store_artifact_free(&a);
    }
}

/* What the store does not keep of the shape (the compute graph's widths,
 * gguf_shape.graph) is read again from the first shard's header when the
 * caches answer: never a hash, only the header. */
static void test_cache_rereads_graph(void **state)
{
    fx *f = *state;
    store_artifact a;
    assert_int_equal(identify_ok(f, f->shard[0], &a), 1);
    assert_int_equal(a.shape.graph, 1); /* as read on the first identify */
    char want[LVD_SHA256_HEX_LEN + 1];
    memcpy(want, a.sha256, sizeof want);
    store_artifact_free(&a);
    lvd_err err;
    assert_int_equal(store_artifact_get(f->s, want, &a, &err), 0);
    assert_int_equal(a.shape.graph, 0); /* the store's own columns */
    assert_int_equal(a.shape.n_vocab, 0);
    store_artifact_free(&a);
    assert_int_equal(store_identify_cached(f->s, f->shard[1], &a, &err), 0);
    assert_int_equal(a.shape.graph, 1);
    assert_int_equal(a.shape.n_vocab, 32000);
    assert_int_equal(a.shape.n_ff, 704);
    store_artifact_free(&a);
    assert_int_equal(identify_ok(f, f->shard[2], &a), 0); /* the cache answered: no hash */
    assert_int_equal(a.shape.graph, 1);
    store_artifact_free(&a);
}

/* A cached split model is not read at all: every shard's magic is broken in
 * place with size, mtime and inode restored, and the caches still answer. */
static void test_cache_reads_nothing(void **state)
{
    fx *f = *state;
    store_artifact a;
    assert_int_equal(identify_ok(f, f->shard[0], &a), 1);
    char want[LVD_SHA256_HEX_LEN + 1];
    memcpy(want, a.sha256, sizeof want);
    store_artifact_free(&a);
    for (int i = 0; i < 3; i++) {
        struct stat sb;
        assert_int_equal(stat(f->shard[i], &sb), 0);
        int fd = open(f->shard[i], O_WRONLY);
        assert_true(fd >= 0);
        assert_int_equal(pwrite(fd, "XXXX", 4, 0), 4);
        close(fd);
        struct timespec ts[2] = {{0, UTIME_OMIT}, sb.st_mtim};
        assert_int_equal(utimensat(AT_FDCWD, f->shard[i], ts, 0), 0);
    }
    assert_int_equal(identify_ok(f, f->shard[0], &a), 0);
    assert_string_equal(a.sha256, want);
    assert_int_equal(a.shape.tensor_bytes, 20550656);
    store_artifact_free(&a);
    lvd_err err;
    assert_int_equal(store_identify_cached(f->s, f->shard[2], &a, &err), 0);
    assert_string_equal(a.sha256, want);
    /* the header it would read the graph's widths from is broken: the
     * stored shape stands (placement prices it with the seed's constant) */
    assert_int_equal(a.shape.graph, 0);
    assert_int_equal(a.shape.tensor_bytes, 20550656);
    store_artifact_free(&a);

    /* one shard's mtime moves: the cache no longer answers, and the broken
     * magic is seen */
    struct timespec later[2] = {{0, UTIME_OMIT}, {12345, 0}};
    assert_int_equal(utimensat(AT_FDCWD, f->shard[1], later, 0), 0);
    assert_int_equal(store_identify_cached(f->s, f->shard[0], &a, &err), 1);
    assert_int_equal(store_identify(f->s, f->shard[0], 0, &a, NULL, &err), -1);
    char *msg = lvd_xasprintf("%s: header: not a GGUF file (no \"GGUF\" magic at offset 0)", f->shard[0]);
    assert_string_equal(err.msg, msg);
    free(msg);
}

/* --- the errors, exactly ----------------------------------------------------- */

static void test_missing_shard(void **state)
{
    fx *f = *state;
    assert_int_equal(unlink(f->shard[2]), 0);
    char *msg = lvd_xasprintf("%s: missing shard 3 of 3 of the split model %s: No such file or directory",
                              f->shard[2], f->shard[0]);
    expect_error(f, f->shard[0], 1, msg);
    expect_error(f, f->shard[1], 1, msg);
    free(msg);
}

static void test_extra_shard(void **state)
{
    fx *f = *state;
    char *extra = gguf_split_shard_path(f->prefix, 4, 3);
    tu_copy(f->shard[2], extra, 0644);
    char *msg = lvd_xasprintf("%s: an extra shard: the split model %s has 3 shards", extra, f->shard[0]);
    expect_error(f, f->shard[0], 1, msg);
    free(msg);
    /* named directly, it is no shard's name */
    msg = lvd_xasprintf("%s: named shard 4 of 3: shards are numbered from 00001 to the count", extra);
    expect_error(f, extra, 1, msg);
    free(msg);
    free(extra);
}

/* Shard 2 of another model split the same way: same count, other tensors. */
static void test_shard_of_another_model(void **state)
{
    fx *f = *state;
    char *other = lvd_xasprintf("%s/moe", f->dir);
    split_model("tiny-moe-q4_0.gguf", other, 3);
    char *moe2 = gguf_split_shard_path(other, 2, 3);
    assert_int_equal(rename(moe2, f->shard[1]), 0);
    char *msg = lvd_xasprintf("%s: split.tensors.count is 43, but %s says 39: a shard of another model",
                              f->shard[1], f->shard[0]);
    expect_error(f, f->shard[0], 0, msg);
    free(msg);
    free(moe2);
    free(other);
}

/* Rewrites shard i (0-based) of small-llama with the keys k and tensors [a, b). */
static void rewrite(fx *f, int i, uint64_t a, uint64_t b, shard_keys k)
{
    src s;
    char *path = tu_model("small-llama-q8_0.gguf");
    src_load(&s, path);
    free(path);
    write_shard(&s, f->shard[i], a, b, i == 0, k);
    src_free(&s);
}

/* Shard 2 rewritten with keys that disagree, or with tensors [13, 25) of
 * [13, 26) (39 tensors in runs [0,13) [13,26) [26,39)): the exact error. */
static void test_counts_disagree(void **state)
{
    fx *f = *state;
    static const struct {
        uint64_t to;
        shard_keys k;
        int first;        /* the error names shard 1, else shard 2 */
        const char *msg;  /* after "PATH: " */
    } cases[] = {
        {26, {1, 4, 39}, 0, "split.count is 4, but the name says 3 shards: a shard of another model"},
        {26, {2, 3, 39}, 0, "split.no is 2, but the name says shard 2 (split.no 1)"},
        {26, {-1, -1, -1}, 0, "no split.count: named shard 2 of 3, but not a shard of a split model"},
        {26, {1, 3, -1}, 0, "no split.tensors.count"},
        /* a shard lost a tensor: every count agrees, but the total does not */
        {25, {1, 3, 39}, 1, "the 3 shards hold 38 tensors, but split.tensors.count is 39"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        rewrite(f, 1, 13, cases[i].to, cases[i].k);
        char *msg = lvd_xasprintf("%s: %s", f->shard[cases[i].first ? 0 : 1], cases[i].msg);
        expect_error(f, f->shard[0], 0, msg);
        free(msg);
    }

    /* a tensor in two shards (the 13th, blk.1.attn_k.weight, in shards 1 and 2) */
    static const uint64_t from[3] = {0, 12, 26}, to[3] = {13, 26, 39};
    for (int i = 0; i < 3; i++)
        rewrite(f, i, from[i], to[i], (shard_keys){i, 3, 40});
    char *msg = lvd_xasprintf("%s: tensor 'blk.1.attn_k.weight' is also in %s: a shard of another model",
                              f->shard[1], f->shard[0]);
    expect_error(f, f->shard[0], 0, msg);
    free(msg);
}

/* A shard copied to a name that is not a shard's. */
static void test_shard_named_as_single(void **state)
{
    fx *f = *state;
    char *plain = lvd_xasprintf("%s/plain.gguf", f->dir);
    tu_copy(f->shard[0], plain, 0644);
    char *msg = lvd_xasprintf("%s: split.count is 3: a shard of a split model, but not named"
                              " NAME-NNNNN-of-00003.gguf as llama.cpp finds shards", plain);
    expect_error(f, plain, 0, msg);
    free(msg);
    free(plain);
}

static void test_names(void **state)
{
    (void)state;
    gguf_split_name sn;
    lvd_err err;
    assert_int_equal(gguf_split_parse_name("/m/qwen-00002-of-00003.gguf", &sn, &err), 1);
    assert_string_equal(sn.prefix, "/m/qwen");
    assert_int_equal(sn.no, 2);
    assert_int_equal(sn.count, 3);
    free(sn.prefix);
    assert_int_equal(gguf_split_parse_name("/m/qwen.gguf", &sn, &err), 0);
    assert_int_equal(gguf_split_parse_name("/m/qwen-0002-of-00003.gguf", &sn, &err), 0);
    assert_int_equal(gguf_split_parse_name("/m/qwen-00002-of-00003.bin", &sn, &err), 0);
    assert_int_equal(gguf_split_parse_name("/m/qwen-00000-of-00003.gguf", &sn, &err), -1);
    assert_string_equal(err.msg, "/m/qwen-00000-of-00003.gguf: named shard 0 of 3: shards are numbered"
                                 " from 00001 to the count");
    char *p = gguf_split_first("/m/qwen-00003-of-00003.gguf");
    assert_string_equal(p, "/m/qwen-00001-of-00003.gguf");
    free(p);
    p = gguf_split_first("/m/qwen.gguf");
    assert_string_equal(p, "/m/qwen.gguf");
    free(p);
}

/* Hashing several files at once gives each its own digest, in order, and
 * names the first file that fails. */
static void test_parallel_hashing(void **state)
{
    fx *f = *state;
    char hex[3][LVD_SHA256_HEX_LEN + 1], one[LVD_SHA256_HEX_LEN + 1];
    uint64_t bytes[3];
    lvd_err err;
    for (unsigned threads = 0; threads <= 3; threads++) {
        assert_int_equal(lvd_sha256_files(f->shard, 3, threads, hex, bytes, &err), 0);
        for (int i = 0; i < 3; i++) {
            file_sha(f->shard[i], one);
            assert_string_equal(hex[i], one);
            struct stat sb;
            assert_int_equal(stat(f->shard[i], &sb), 0);
            assert_int_equal(bytes[i], sb.st_size);
        }
    }
    char *files[3] = {f->shard[0], lvd_xasprintf("%s/none", f->dir), f->dir};
    assert_int_equal(lvd_sha256_files(files, 3, 0, hex, bytes, &err), -1);
    char *msg = lvd_xasprintf("%s: cannot open: No such file or directory", files[1]);
    assert_string_equal(err.msg, msg);
    free(msg);
    free(files[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_shape_sums_shards, setup, teardown),
        cmocka_unit_test_setup_teardown(test_identity_covers_every_shard, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_rereads_graph, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_reads_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_shard, setup, teardown),
        cmocka_unit_test_setup_teardown(test_extra_shard, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shard_of_another_model, setup, teardown),
        cmocka_unit_test_setup_teardown(test_counts_disagree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shard_named_as_single, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parallel_hashing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
