/* test_gguf.c: the GGUF reader on the three real models (see tu_model) and
 * on hostile variants built here: every truncation point, bad magic and
 * versions, huge lengths and counts, bad dimensions and types, tensor data
 * beyond the file. Expected sizes are computed from the models' documented
 * dimensions (tests/fixtures/llama.cpp/README.md) and cross-checked with the
 * model_size llama-bench reported for the same files in the captures. */
#include "common/gguf.h"
#include "tests/support/testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- bytes per tensor, as ggml lays them out ----------------------------- */

static uint64_t f32(uint64_t n) { return n * 4; }
static uint64_t q4_0(uint64_t n) { return n / 32 * 18; }
static uint64_t q8_0(uint64_t n) { return n / 32 * 34; }

#define VOCAB 32000

static void expect_error(int rc, const lvd_err *err, const char *name, const char *needle)
{
    assert_int_equal(rc, -1);
    if (!strstr(err->msg, name) || !strstr(err->msg, needle))
        fail_msg("error \"%s\" lacks \"%s\" or \"%s\"", err->msg, name, needle);
}

/* --- the real models ---------------------------------------------------- */

static void read_model(const char *file, gguf_shape *s, uint64_t *file_size)
{
    char *path = tu_model(file);
    lvd_err err;
    if (gguf_read_shape(path, s, &err) != 0)
        fail_msg("%s", err.msg);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    *file_size = (uint64_t)sb.st_size;
    free(path);
    assert_int_equal(s->known, 1);
    /* data lies inside the file */
    assert_true(s->data_offset + s->tensor_bytes <= *file_size);
    assert_int_equal(s->data_offset % 32, 0);
}

static void test_tiny_llama(void **state)
{
    (void)state;
    gguf_shape s;
    uint64_t size;
    read_model("tiny-llama-q4_0.gguf", &s, &size);
    assert_int_equal(s.version, 3);
    assert_string_equal(s.arch, "llama");
    assert_string_equal(s.name, "tiny-llama");
    assert_int_equal(s.file_type, 2);
    assert_string_equal(gguf_file_type_name(s.file_type), "Q4_0");
    assert_int_equal(s.n_block, 2);
    assert_int_equal(s.n_embd, 64);
    assert_int_equal(s.n_head, 4);
    assert_int_equal(s.n_head_kv, 2);
    assert_int_equal(s.head_dim_k, 16); /* no key_length: n_embd / n_head */
    assert_int_equal(s.head_dim_v, 16);
    assert_int_equal(s.n_ctx_train, 4096);
    assert_int_equal(s.n_expert, 0);
    assert_int_equal(s.n_expert_used, 0);
    assert_int_equal(s.expert_bytes, 0);
    /* 9 tensors per block (2 norms, q k v o, gate up down), then token_embd,
     * output_norm, output */
    assert_int_equal(s.n_tensors, 2 * 9 + 3);
    uint64_t n_ff = 128, kv = 2 * 16;
    uint64_t block = 2 * f32(64) + 2 * q4_0(64 * 64) + 2 * q4_0(64 * kv) + 3 * q4_0(64 * n_ff);
    assert_int_equal(s.block_bytes, block);
    assert_int_equal(s.non_block_bytes, 2 * q4_0(64 * VOCAB) + f32(64));
    /* blocks are all the same size here, so the identity holds exactly */
    assert_int_equal(s.block_bytes * s.n_block + s.non_block_bytes, s.tensor_bytes);
    assert_int_equal(s.data_offset + s.tensor_bytes, size);
}

static void test_tiny_moe(void **state)
{
    (void)state;
    gguf_shape s;
    uint64_t size;
    read_model("tiny-moe-q4_0.gguf", &s, &size);
    assert_string_equal(s.name, "tiny-moe");
    assert_string_equal(gguf_file_type_name(s.file_type), "Q4_0");
    assert_int_equal(s.n_block, 4);
    assert_int_equal(s.n_embd, 64);
    assert_int_equal(s.n_head, 4);
    assert_int_equal(s.n_head_kv, 2);
    assert_int_equal(s.n_expert, 4);
    assert_int_equal(s.n_expert_used, 2);
    /* 10 tensors per block: the dense 9 with experts for ffn, plus ffn_gate_inp */
    assert_int_equal(s.n_tensors, 4 * 10 + 3);
    uint64_t n_ff = 64, n_exp = 4, kv = 2 * 16;
    uint64_t experts = 3 * q4_0(64 * n_ff * n_exp);
    assert_true(s.expert_bytes > 0);
    assert_int_equal(s.expert_bytes, experts);
    uint64_t block = 2 * f32(64) + 2 * q4_0(64 * 64) + 2 * q4_0(64 * kv) + f32(64 * n_exp) + experts;
    assert_int_equal(s.block_bytes, block);
    assert_int_equal(s.block_bytes * s.n_block + s.non_block_bytes, s.tensor_bytes);
    /* llama-bench's model_size for this file (cpu-build-b9749/bench-moe-ncmoe) */
    assert_int_equal(s.tensor_bytes, 2448640);
}

static void test_small_llama(void **state)
{
    (void)state;
    gguf_shape s;
    uint64_t size;
    read_model("small-llama-q8_0.gguf", &s, &size);
    assert_string_equal(s.name, "small-llama");
    assert_int_equal(s.file_type, 7);
    assert_string_equal(gguf_file_type_name(s.file_type), "Q8_0");
    assert_int_equal(s.n_block, 4);
    assert_int_equal(s.n_embd, 256);
    assert_int_equal(s.n_head, 8);
    assert_int_equal(s.n_head_kv, 4);
    assert_int_equal(s.head_dim_k, 32);
    assert_int_equal(s.head_dim_v, 32);
    assert_int_equal(s.n_expert, 0);
    assert_int_equal(s.n_tensors, 4 * 9 + 3);
    uint64_t n_ff = 704, kv = 4 * 32;
    uint64_t block = 2 * f32(256) + 2 * q8_0(256 * 256) + 2 * q8_0(256 * kv) + 3 * q8_0(256 * n_ff);
    assert_int_equal(s.block_bytes, block);
    assert_int_equal(s.non_block_bytes, 2 * q8_0(256 * VOCAB) + f32(256));
    assert_int_equal(s.block_bytes * s.n_block + s.non_block_bytes, s.tensor_bytes);
    /* llama-bench's model_size for this file (cpu-build-b9749/bench-json) */
    assert_int_equal(s.tensor_bytes, 20550656);
}

static uint64_t proc_rchar(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    if (!f)
        return UINT64_MAX;
    char line[128];
    uint64_t v = UINT64_MAX;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "rchar: %lu", &v) == 1)
            break;
    fclose(f);
    return v;
}

/* The reader reads the header region, not the tensor data: the bytes read
 * (the kernel's rchar count) stay near data_offset, far below the file size. */
static void test_reads_only_header(void **state)
{
    (void)state;
    char *path = tu_model("small-llama-q8_0.gguf");
    gguf_shape s;
    lvd_err err;
    uint64_t before = proc_rchar();
    if (before == UINT64_MAX) {
        free(path);
        skip();
    }
    assert_int_equal(gguf_read_shape(path, &s, &err), 0);
    uint64_t read = proc_rchar() - before;
    free(path);
    assert_true(read >= s.data_offset - 4096);          /* it did read the header */
    assert_true(read <= s.data_offset + (256u << 10));  /* plus at most one chunk */
    assert_true(read < s.tensor_bytes / 10);
}

/* The in-memory entry point over the header region alone gives the same
 * shape as the file reader. */
static void test_memory_matches_file(void **state)
{
    (void)state;
    const char *files[] = {"tiny-llama-q4_0.gguf", "tiny-moe-q4_0.gguf", "small-llama-q8_0.gguf"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(files); i++) {
        char *path = tu_model(files[i]);
        size_t n;
        char *data = tu_read(path, &n);
        gguf_shape a, b;
        lvd_err err;
        assert_int_equal(gguf_read_shape(path, &a, &err), 0);
        if (gguf_parse_shape(data, a.data_offset, n, files[i], &b, &err) != 0)
            fail_msg("%s", err.msg);
        assert_string_equal(a.arch, b.arch);
        assert_string_equal(a.name, b.name);
        assert_int_equal(a.n_tensors, b.n_tensors);
        assert_int_equal(a.n_kv, b.n_kv);
        assert_int_equal(a.block_bytes, b.block_bytes);
        assert_int_equal(a.expert_bytes, b.expert_bytes);
        assert_int_equal(a.non_block_bytes, b.non_block_bytes);
        assert_int_equal(a.tensor_bytes, b.tensor_bytes);
        assert_int_equal(a.data_offset, b.data_offset);
        assert_int_equal(a.n_head_kv, b.n_head_kv);
        free(data);
        free(path);
    }
}

/* Every prefix of the file's own structure fails as truncated, naming the
 * file: exhaustively through the header and first metadata (16 KiB) and the
 * last 2 KiB (trailing metadata and the 21 tensor infos), at a prime stride
 * through the vocabulary arrays between them (whose elements all take the
 * same path), and around the end of the tensor data. */
static void test_tiny_llama_truncations(void **state)
{
    (void)state;
    const char *name = "tiny-llama-q4_0.gguf";
    char *path = tu_model("tiny-llama-q4_0.gguf");
    size_t n;
    char *data = tu_read(path, &n);
    gguf_shape s;
    lvd_err err;
    assert_int_equal(gguf_parse_shape(data, n, n, name, &s, &err), 0);
    size_t hdr = (size_t)s.data_offset;
    size_t count = 0;
    for (size_t len = 0; len < n; count++) {
        int rc = gguf_parse_shape(data, len, len, name, &s, &err);
        expect_error(rc, &err, name, "truncated");
        assert_int_equal(s.known, 0);
        if (len < 16384 || len + 2048 >= hdr)
            len++;
        else
            len += 251;
        if (len > hdr + 64 && len < n - 64)
            len = n - 64; /* inside the data only the size matters */
    }
    assert_true(count > 18000);
    /* the header region alone is enough when the full size is known; it ends
     * with the last tensor info, before the padding up to data_offset */
    size_t end = hdr;
    while (gguf_parse_shape(data, end - 1, n, name, &s, &err) == 0)
        end--;
    assert_true(hdr - end < 32);
    expect_error(gguf_parse_shape(data, end - 1, n, name, &s, &err), &err, name, "truncated");

    /* the same through files, around the reader's 256 KiB chunks */
    char *dir = tu_tmpdir();
    char *cut = lvd_xasprintf("%s/cut.gguf", dir);
    size_t points[] = {0, 1, 4, 8, 23, 24, 100, 262143, 262144, 262145, hdr - 1, hdr, hdr + 1,
                       n - 1};
    for (size_t i = 0; i < LVD_ARRAY_LEN(points); i++) {
        tu_write(cut, data, points[i]);
        expect_error(gguf_read_shape(cut, &s, &err), &err, cut, "truncated");
    }
    /* the whole file copied reads fine */
    tu_write(cut, data, n);
    assert_int_equal(gguf_read_shape(cut, &s, &err), 0);
    free(cut);
    tu_tmpdir_free(dir);
    free(data);
    free(path);
}

static void test_file_errors(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *missing = lvd_xasprintf("%s/missing.gguf", dir);
    gguf_shape s;
    lvd_err err;
    expect_error(gguf_read_shape(missing, &s, &err), &err, missing, "No such file");
    expect_error(gguf_read_shape(dir, &s, &err), &err, dir, "not a regular file");
    char *text = lvd_xasprintf("%s/notes.txt", dir);
    tu_write_str(text, "hello, this is not a model at all\n");
    expect_error(gguf_read_shape(text, &s, &err), &err, text, "not a GGUF file");
    free(text);
    free(missing);
    tu_tmpdir_free(dir);
}

/* --- a small GGUF built here, with the offsets of the fields to corrupt --- */

enum { U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 };

typedef struct mini {
    lvd_sb b;
    size_t version, n_tensors, n_kv, key0_len, vtype0, str_arr_count, align_val;
    size_t t0_ndims, t0_dims, t0_type, t1_offset;
    size_t infos_end;   /* the last tensor info's end; padding follows */
    size_t data_offset;
} mini;

typedef struct mini_opts {
    int dup_key;
    int dup_tensor;
    int nest;  /* array levels below the top one in test.nested */
} mini_opts;

static void put_u(lvd_sb *b, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        lvd_sb_addc(b, (char)(v >> (8 * i)));
}

static void put_str(lvd_sb *b, const char *s)
{
    put_u(b, strlen(s), 8);
    lvd_sb_add(b, s, strlen(s));
}

static void put_key(lvd_sb *b, const char *key, uint32_t type)
{
    put_str(b, key);
    put_u(b, type, 4);
}

static void put_nested(lvd_sb *b, int depth)
{
    if (depth == 0) {
        put_u(b, U8, 4);
        put_u(b, 3, 8);
        lvd_sb_add(b, "\1\2\3", 3);
        return;
    }
    put_u(b, ARR, 4);
    put_u(b, 1, 8);
    put_nested(b, depth - 1);
}

static void put_tensor(lvd_sb *b, const char *name, int n_dims, const uint64_t *dims,
                       uint32_t type, uint64_t offset, mini *m, int index)
{
    put_str(b, name);
    if (index == 0)
        m->t0_ndims = b->len;
    put_u(b, (uint64_t)n_dims, 4);
    if (index == 0)
        m->t0_dims = b->len;
    for (int i = 0; i < n_dims; i++)
        put_u(b, dims[i], 8);
    if (index == 0)
        m->t0_type = b->len;
    put_u(b, type, 4);
    if (index == 1)
        m->t1_offset = b->len;
    put_u(b, offset, 8);
}

#define MINI_TENSOR_BYTES (4096 + 1024 + 544)

static void mini_build(mini *m, const mini_opts *o)
{
    memset(m, 0, sizeof *m);
    lvd_sb *b = &m->b;
    lvd_sb_add(b, "GGUF", 4);
    m->version = b->len;
    put_u(b, 3, 4);
    m->n_tensors = b->len;
    put_u(b, 3, 8);
    m->n_kv = b->len;
    put_u(b, 0, 8); /* patched below */
    uint64_t n_kv = 0;

    m->key0_len = b->len;
    put_str(b, "general.architecture");
    m->vtype0 = b->len;
    put_u(b, STR, 4);
    put_str(b, "llama");
    n_kv++;
    put_key(b, "general.name", STR), put_str(b, "mini"), n_kv++;
    put_key(b, "general.alignment", U32);
    m->align_val = b->len;
    put_u(b, 32, 4), n_kv++;
    put_key(b, "general.file_type", U32), put_u(b, 0, 4), n_kv++;
    put_key(b, "llama.block_count", U32), put_u(b, 1, 4), n_kv++;
    put_key(b, "llama.embedding_length", U64), put_u(b, 32, 8), n_kv++;
    put_key(b, "llama.attention.head_count", U16), put_u(b, 2, 2), n_kv++;
    /* per-layer KV heads as an array: the largest counts */
    put_key(b, "llama.attention.head_count_kv", ARR), put_u(b, I32, 4), put_u(b, 2, 8);
    put_u(b, 1, 4), put_u(b, 2, 4), n_kv++;
    put_key(b, "llama.attention.key_length", U8), put_u(b, 24, 1), n_kv++;
    put_key(b, "llama.context_length", I32), put_u(b, 512, 4), n_kv++;
    put_key(b, "test.i8", I8), put_u(b, (uint64_t)-5, 1), n_kv++;
    put_key(b, "test.i16", I16), put_u(b, (uint64_t)-300, 2), n_kv++;
    put_key(b, "test.f32", F32), put_u(b, 0x3fc00000, 4), n_kv++;
    put_key(b, "test.bool", BOOL), put_u(b, 1, 1), n_kv++;
    put_key(b, "test.i64", I64), put_u(b, (uint64_t)-1, 8), n_kv++;
    put_key(b, "test.f64", F64), put_u(b, 0x4004000000000000ull, 8), n_kv++;
    put_key(b, "test.strings", ARR), put_u(b, STR, 4);
    m->str_arr_count = b->len;
    put_u(b, 3, 8), put_str(b, "a"), put_str(b, "bc"), put_str(b, ""), n_kv++;
    put_key(b, "test.u32s", ARR), put_u(b, U32, 4), put_u(b, 2, 8);
    put_u(b, 7, 4), put_u(b, 9, 4), n_kv++;
    put_key(b, "test.nested", ARR), put_nested(b, o->nest), n_kv++;
    if (o->dup_key)
        put_key(b, "llama.block_count", U32), put_u(b, 1, 4), n_kv++;
    for (int i = 0; i < 8; i++)
        b->buf[m->n_kv + i] = (char)(n_kv >> (8 * i));

    uint64_t d0[] = {32, 32}, d1[] = {32, 8}, d2[] = {32, 8, 2};
    put_tensor(b, "blk.0.attn_q.weight", 2, d0, 0, 0, m, 0);
    put_tensor(b, "token_embd.weight", 2, d1, 0, 4096, m, 1);
    put_tensor(b, o->dup_tensor ? "blk.0.attn_q.weight" : "blk.0.ffn_up_exps.weight", 3, d2,
               8 /* Q8_0 */, 5120, m, 2);
    m->infos_end = b->len;
    while (b->len % 32)
        lvd_sb_addc(b, 0);
    m->data_offset = b->len;
    for (int i = 0; i < MINI_TENSOR_BYTES; i++)
        lvd_sb_addc(b, (char)i);
}

static void patch(mini *m, size_t off, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        m->b.buf[off + i] = (char)(v >> (8 * i));
}

static int mini_parse(const mini *m, gguf_shape *s, lvd_err *err)
{
    return gguf_parse_shape(m->b.buf, m->b.len, m->b.len, "mini.gguf", s, err);
}

static void test_mini_valid(void **state)
{
    (void)state;
    mini m;
    mini_opts o = {.nest = 2};
    mini_build(&m, &o);
    gguf_shape s;
    lvd_err err;
    if (mini_parse(&m, &s, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(s.version, 3);
    assert_int_equal(s.n_tensors, 3);
    assert_int_equal(s.n_kv, 19);
    assert_string_equal(s.arch, "llama");
    assert_string_equal(s.name, "mini");
    assert_int_equal(s.file_type, 0);
    assert_string_equal(gguf_file_type_name(s.file_type), "F32");
    assert_int_equal(s.n_block, 1);
    assert_int_equal(s.n_embd, 32);
    assert_int_equal(s.n_head, 2);
    assert_int_equal(s.n_head_kv, 2);   /* max of [1, 2] */
    assert_int_equal(s.head_dim_k, 24); /* key_length given */
    assert_int_equal(s.head_dim_v, 16); /* value_length absent: 32 / 2 */
    assert_int_equal(s.n_ctx_train, 512);
    assert_int_equal(s.block_bytes, 4096 + 544);
    assert_int_equal(s.expert_bytes, 544);
    assert_int_equal(s.non_block_bytes, 1024);
    assert_int_equal(s.tensor_bytes, MINI_TENSOR_BYTES);
    assert_int_equal(s.data_offset, m.data_offset);

    /* version 2 reads the same */
    patch(&m, m.version, 2, 4);
    assert_int_equal(mini_parse(&m, &s, &err), 0);
    assert_int_equal(s.version, 2);

    /* eight array levels are read, nine are refused */
    lvd_sb_free(&m.b);
    o.nest = 7;
    mini_build(&m, &o);
    assert_int_equal(mini_parse(&m, &s, &err), 0);
    lvd_sb_free(&m.b);
    o.nest = 8;
    mini_build(&m, &o);
    expect_error(mini_parse(&m, &s, &err), &err, "mini.gguf", "nested deeper");
    lvd_sb_free(&m.b);
}

static void test_mini_truncations(void **state)
{
    (void)state;
    mini m;
    mini_opts o = {.nest = 2};
    mini_build(&m, &o);
    gguf_shape s;
    lvd_err err;
    for (size_t len = 0; len < m.b.len; len++) {
        int rc = gguf_parse_shape(m.b.buf, len, len, "mini.gguf", &s, &err);
        if (rc == 0)
            fail_msg("prefix of %zu bytes (of %zu) parsed", len, m.b.len);
        expect_error(rc, &err, "mini.gguf", "truncated");
        /* with the full size known, only a cut inside the header fails */
        rc = gguf_parse_shape(m.b.buf, len, m.b.len, "mini.gguf", &s, &err);
        if (len < m.infos_end)
            expect_error(rc, &err, "mini.gguf", "truncated");
        else
            assert_int_equal(rc, 0);
    }
    assert_true(m.infos_end < m.data_offset); /* the padding case is covered */
    lvd_sb_free(&m.b);
}

static size_t field_at(const mini *m, const char *which)
{
    if (!strcmp(which, "version")) return m->version;
    if (!strcmp(which, "n_tensors")) return m->n_tensors;
    if (!strcmp(which, "n_kv")) return m->n_kv;
    if (!strcmp(which, "key0_len")) return m->key0_len;
    if (!strcmp(which, "vtype0")) return m->vtype0;
    if (!strcmp(which, "str_arr_count")) return m->str_arr_count;
    if (!strcmp(which, "align_val")) return m->align_val;
    if (!strcmp(which, "t0_ndims")) return m->t0_ndims;
    if (!strcmp(which, "t0_dim0")) return m->t0_dims;
    if (!strcmp(which, "t0_dim1")) return m->t0_dims + 8;
    if (!strcmp(which, "t0_type")) return m->t0_type;
    if (!strcmp(which, "t1_offset")) return m->t1_offset;
    fail_msg("no field %s", which);
    return 0;
}

static void test_mini_corruptions(void **state)
{
    (void)state;
    static const struct {
        const char *field;
        uint64_t value;
        int width;
        const char *needle;
    } cases[] = {
        {"version", 1, 4, "GGUF version 1 is not supported"},
        {"version", 99, 4, "unsupported GGUF version 99"},
        {"version", 0x03000000, 4, "big-endian"},
        {"n_tensors", 1ull << 40, 8, "implausible tensor count"},
        {"n_tensors", 1000, 8, "cannot fit"},
        {"n_kv", 1ull << 62, 8, "implausible metadata count"},
        {"key0_len", 1ull << 63, 8, "runs past the end"},
        {"key0_len", 70000, 8, "runs past the end"},
        {"vtype0", 13, 4, "unknown metadata value type 13"},
        {"str_arr_count", 1ull << 61, 8, "does not fit"},
        {"align_val", 0, 4, "general.alignment"},
        {"align_val", 48, 4, "general.alignment"},
        {"t0_ndims", 5, 4, "5 dimensions (at most 4)"},
        {"t0_dim0", 1ull << 63, 8, "negative"},
        {"t0_dim0", 1ull << 40, 8, "element count overflows"},
        {"t0_type", 99, 4, "unknown ggml type 99"},
        {"t0_type", 4, 4, "unknown ggml type 4"},     /* Q4_2, removed */
        {"t0_type", 12, 4, "not a multiple of the Q4_K block size 256"},
        {"t1_offset", 1u << 20, 8, "truncated: tensor 'token_embd.weight' ends at byte"},
        {"t1_offset", 4100, 8, "not a multiple of the alignment 32"},
        {"t1_offset", UINT64_MAX - 31, 8, "overflows"},
        {"t1_offset", 4096 + 32, 8, "has data offset 4128, expected 4096"},
        {"t1_offset", 0, 8, "has data offset 0, expected 4096"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        mini m;
        mini_opts o = {.nest = 2};
        mini_build(&m, &o);
        patch(&m, field_at(&m, cases[i].field), cases[i].value, cases[i].width);
        if (!strcmp(cases[i].field, "t0_dim0") && cases[i].value == 1ull << 40)
            patch(&m, field_at(&m, "t0_dim1"), 1ull << 40, 8);
        gguf_shape s;
        lvd_err err;
        int rc = mini_parse(&m, &s, &err);
        if (rc != -1 || !strstr(err.msg, "mini.gguf") || !strstr(err.msg, cases[i].needle))
            fail_msg("%s=%llu: rc %d, \"%s\" lacks \"%s\"", cases[i].field,
                     (unsigned long long)cases[i].value, rc, rc ? err.msg : "",
                     cases[i].needle);
        assert_int_equal(s.known, 0);
        lvd_sb_free(&m.b);
    }

    mini m;
    gguf_shape s;
    lvd_err err;
    mini_opts dup_key = {.nest = 2, .dup_key = 1};
    mini_build(&m, &dup_key);
    expect_error(mini_parse(&m, &s, &err), &err, "mini.gguf", "duplicate key 'llama.block_count'");
    lvd_sb_free(&m.b);
    mini_opts dup_tensor = {.nest = 2, .dup_tensor = 1};
    mini_build(&m, &dup_tensor);
    expect_error(mini_parse(&m, &s, &err), &err, "mini.gguf",
                 "duplicate tensor name 'blk.0.attn_q.weight'");
    lvd_sb_free(&m.b);

    mini_opts plain = {.nest = 2};
    mini_build(&m, &plain);
    memcpy(m.b.buf, "GGUX", 4);
    expect_error(mini_parse(&m, &s, &err), &err, "mini.gguf", "not a GGUF file");
    lvd_sb_free(&m.b);

    /* the same errors come through files, naming the path */
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/n_dims.gguf", dir);
    mini_build(&m, &plain);
    patch(&m, m.t0_ndims, 5, 4);
    tu_write(path, m.b.buf, m.b.len);
    expect_error(gguf_read_shape(path, &s, &err), &err, path, "5 dimensions");
    lvd_sb_free(&m.b);
    free(path);
    tu_tmpdir_free(dir);
}

/* Random byte flips never crash the reader (ASan/UBSan builds check memory). */
static void test_random_flips(void **state)
{
    (void)state;
    mini m;
    mini_opts o = {.nest = 2};
    mini_build(&m, &o);
    char *orig = lvd_xmalloc(m.b.len);
    memcpy(orig, m.b.buf, m.b.len);
    uint32_t x = 12345;
    int ok = 0, failed = 0;
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(m.b.buf, orig, m.b.len);
        int flips = 1 + iter % 4;
        for (int f = 0; f < flips; f++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            size_t at = x % m.data_offset;
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            m.b.buf[at] = (char)(iter & 1 ? m.b.buf[at] ^ (1 << (x % 8)) : (char)x);
        }
        gguf_shape s;
        lvd_err err;
        if (mini_parse(&m, &s, &err) == 0) {
            ok++;
            assert_true(s.data_offset + s.tensor_bytes <= m.b.len);
        } else {
            failed++;
            assert_non_null(strstr(err.msg, "mini.gguf"));
        }
    }
    assert_true(ok > 0 && failed > 0);
    free(orig);
    lvd_sb_free(&m.b);
}

static void test_file_type_names(void **state)
{
    (void)state;
    assert_string_equal(gguf_file_type_name(0), "F32");
    assert_string_equal(gguf_file_type_name(1), "F16");
    assert_string_equal(gguf_file_type_name(2), "Q4_0");
    assert_string_equal(gguf_file_type_name(3), "Q4_1");
    assert_string_equal(gguf_file_type_name(7), "Q8_0");
    assert_string_equal(gguf_file_type_name(8), "Q5_0");
    assert_string_equal(gguf_file_type_name(10), "Q2_K");
    assert_string_equal(gguf_file_type_name(11), "Q3_K_S");
    assert_string_equal(gguf_file_type_name(15), "Q4_K_M");
    assert_string_equal(gguf_file_type_name(18), "Q6_K");
    assert_string_equal(gguf_file_type_name(32), "BF16");
    assert_string_equal(gguf_file_type_name(38), "MXFP4_MOE");
    assert_string_equal(gguf_file_type_name(4), "?");  /* removed from llama.cpp */
    assert_string_equal(gguf_file_type_name(33), "?");
    assert_string_equal(gguf_file_type_name(-1), "?");
    assert_string_equal(gguf_file_type_name(100000), "?");
}

/* The compute graph's widths (gguf_shape.graph), on the kv-*.gguf models of
 * tests/fixtures/models/make-kvarch-models.py (hidden size 64, vocabulary
 * 512, f16 weights): the script's numbers, and flags from the tensor names. */
static void test_graph_widths(void **state)
{
    (void)state;
    gguf_shape s;
    uint64_t size;
    read_model("kv-llama.gguf", &s, &size);
    assert_int_equal(s.graph, 1);
    assert_int_equal(s.n_vocab, 512);       /* token_embd.weight's rows */
    assert_int_equal(s.n_ff, 128);
    assert_int_equal(s.n_ff_exp, 0);
    assert_int_equal(s.n_rot, 16);
    assert_int_equal(s.graph_flags, 0);     /* separate Q/K/V, gated FFN, own output head */
    assert_int_equal(s.output_bytes, 64 * 512 * 2);
    /* a block: two f32 norms of 64, Q/K/V/O (64x64, 64x32, 64x32, 64x64),
     * gate/up/down (64x128 each), elements and bytes */
    assert_int_equal(s.block_elems, 2 * 64 + 64 * 64 * 2 + 64 * 32 * 2 + 3 * 64 * 128);
    assert_int_equal(s.block_bytes, 2 * 64 * 4 + (64 * 64 * 2 + 64 * 32 * 2 + 3 * 64 * 128) * 2);

    read_model("kv-qwen2moe.gguf", &s, &size);
    assert_int_equal(s.n_ff_exp, 32);
    assert_int_equal(s.n_ff_shexp, 64);    /* expert_shared_feed_forward_length */
    assert_int_equal(s.graph_flags, GGUF_GRAPH_SHEXP_GATE);
    assert_int_equal(s.max_expert_tensor_bytes, 64 * 32 * 4 * 2);
    assert_int_equal(s.router_bytes, 64 * 4 * 2);     /* ffn_gate_inp [64, 4 experts], f16 here */
    assert_int_equal(s.shexp_gate_bytes, 64 * 4);     /* ffn_gate_inp_shexp [64], f32 */

    read_model("kv-gemma3.gguf", &s, &size);
    assert_int_equal(s.graph_flags, GGUF_GRAPH_QK_NORM | GGUF_GRAPH_TIED);
    assert_int_equal(s.output_bytes, s.embd_bytes); /* tied: the head is token_embd */

    read_model("kv-deepseek2.gguf", &s, &size);
    assert_int_equal(s.kv_lora_rank, 32);
    assert_int_equal(s.q_lora_rank, 32);
    assert_int_equal(s.head_dim_k_mla, 32); /* nope 16 + rope 16 */
    assert_int_equal(s.head_dim_v_mla, 16);
    assert_int_equal(s.n_dense_lead, 1);
    assert_int_equal(s.n_ff_shexp, 32);     /* one shared expert of expert_feed_forward_length */

    read_model("kv-lfm2.gguf", &s, &size); /* Q/K norms on its attention blocks, no head */
    assert_int_equal(s.n_vocab, 512);
    assert_int_equal(s.graph_flags, GGUF_GRAPH_QK_NORM | GGUF_GRAPH_TIED);
}

/* Which blocks keep a recurrent state and how large it is: lfm2's
 * short-convolution blocks are those without KV heads (head_count_kv
 * [0, 2, 0, 2]), each keeping n_embd x (l_cache - 1) f32 per sequence
 * (64 x 2 x 4 = 512 bytes); a dense llama keeps none. */
static void test_recurrent_blocks(void **state)
{
    (void)state;
    gguf_shape s;
    uint64_t size;
    read_model("kv-lfm2.gguf", &s, &size);
    assert_int_equal(s.layer_recr[0], 1);
    assert_int_equal(s.layer_recr[1], 0);
    assert_int_equal(s.layer_recr[2], 1);
    assert_int_equal(s.layer_recr[3], 0);
    assert_int_equal(s.rs_bytes, 64 * 2 * 4);
    assert_int_equal(s.n_nextn, 0);
    read_model("kv-llama.gguf", &s, &size);
    assert_int_equal(s.rs_bytes, 0);
    for (uint32_t i = 0; i < s.n_block; i++)
        assert_int_equal(s.layer_recr[i], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_llama),
        cmocka_unit_test(test_tiny_moe),
        cmocka_unit_test(test_small_llama),
        cmocka_unit_test(test_reads_only_header),
        cmocka_unit_test(test_memory_matches_file),
        cmocka_unit_test(test_tiny_llama_truncations),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_mini_valid),
        cmocka_unit_test(test_mini_truncations),
        cmocka_unit_test(test_mini_corruptions),
        cmocka_unit_test(test_random_flips),
        cmocka_unit_test(test_file_type_names),
        cmocka_unit_test(test_graph_widths),
        cmocka_unit_test(test_recurrent_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
