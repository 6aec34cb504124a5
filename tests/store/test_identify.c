/* test_identify.c: artifact identity through the store's path cache. The proof
 * that a cached file is not read: its bytes (magic included) are rewritten in
 * place while size, mtime and inode are restored, and identify still answers
 * the old hash and shape without hashing. A changed mtime, inode or path
 * re-hashes; symlinks resolve to the same cache entry; non-GGUF files are
 * refused unless allowed. */
#include "store/identify.h"
#include "common/sha256.h"
#include "tests/support/testutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* sha256sum of share/models/tiny-llama-q4_0.gguf */
#define TINY_LLAMA_SHA "194f08028caffcebd46f6b2b08bab228980fdcbff79da56119855cf8f1287544"

typedef struct fx {
    char *dir;
    char *model;   /* a private copy of tiny-llama, free to modify */
    store *s;
} fx;

static int setup(void **state)
{
    fx *f = lvd_xcalloc(1, sizeof *f);
    f->dir = tu_tmpdir();
    char *real = realpath(f->dir, NULL); /* identify reports resolved paths */
    assert_non_null(real);
    f->model = lvd_xasprintf("%s/tiny.gguf", real);
    free(real);
    char *src = tu_model("tiny-llama-q4_0.gguf");
    size_t n;
    char *data = tu_read(src, &n);
    tu_write(f->model, data, n);
    free(data);
    free(src);
    f->s = tu_store(f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    store_close(f->s);
    free(f->model);
    tu_tmpdir_free(f->dir);
    free(f);
    return 0;
}

/* Identifies path and checks the outcome; returns hashed. */
static int identify_ok(fx *f, const char *path, int allow, store_artifact *a)
{
    int hashed = -1;
    lvd_err err;
    if (store_identify(f->s, path, allow, a, &hashed, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(lvd_sha256_valid(a->sha256));
    assert_true(hashed == 0 || hashed == 1);
    return hashed;
}

static struct stat stat_of(const char *path)
{
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return sb;
}

/* Overwrites n bytes at off in place: same inode, same size. */
static void poke(const char *path, off_t off, const void *bytes, size_t n)
{
    int fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, bytes, n, off), (ssize_t)n);
    assert_int_equal(close(fd), 0);
}

static void set_mtime(const char *path, struct timespec mtime)
{
    struct timespec ts[2] = {{0, UTIME_OMIT}, mtime};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void file_sha(const char *path, char hex[LVD_SHA256_HEX_LEN + 1])
{
    lvd_err err;
    if (lvd_sha256_file(path, hex, NULL, &err) != 0)
        fail_msg("%s", err.msg);
}

static void test_cache_spares_reading(void **state)
{
    fx *f = *state;
    store_artifact a;
    assert_int_equal(identify_ok(f, f->model, 0, &a), 1);
    assert_string_equal(a.sha256, TINY_LLAMA_SHA);
    assert_int_equal(a.size, stat_of(f->model).st_size);
    assert_int_equal(a.shape.known, 1);
    assert_int_equal(a.shape.n_embd, 64);
    assert_int_equal(a.shape.n_block, 2);
    assert_non_null(a.last_path);
    assert_string_equal(a.last_path, f->model);
    store_artifact_free(&a);

    assert_int_equal(identify_ok(f, f->model, 0, &a), 0);
    assert_string_equal(a.sha256, TINY_LLAMA_SHA);
    assert_int_equal(a.shape.n_embd, 64);
    store_artifact_free(&a);

    /* rewrite the magic and the last data byte in place, restore the mtime:
     * same (path, size, mtime, inode), different bytes */
    struct stat before = stat_of(f->model);
    poke(f->model, 0, "XXXX", 4);
    unsigned char last = 0x5a;
    poke(f->model, before.st_size - 1, &last, 1);
    set_mtime(f->model, before.st_mtim);
    struct stat after = stat_of(f->model);
    assert_int_equal(after.st_ino, before.st_ino);
    assert_int_equal(after.st_size, before.st_size);
    assert_int_equal(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    char now_sha[LVD_SHA256_HEX_LEN + 1];
    file_sha(f->model, now_sha);
    assert_string_not_equal(now_sha, TINY_LLAMA_SHA);
    /* had identify opened the file it would have failed on the magic, or
     * hashed new bytes: it answers the cached hash and shape instead */
    assert_int_equal(identify_ok(f, f->model, 0, &a), 0);
    assert_string_equal(a.sha256, TINY_LLAMA_SHA);
    assert_int_equal(a.shape.known, 1);
    assert_int_equal(a.shape.n_head, 4);
    store_artifact_free(&a);

    /* a changed mtime re-reads: the broken magic is now seen */
    struct timespec later = before.st_mtim;
    later.tv_sec += 1;
    set_mtime(f->model, later);
    int hashed = -1;
    lvd_err err;
    assert_int_equal(store_identify(f->s, f->model, 0, &a, &hashed, &err), -1);
    assert_non_null(strstr(err.msg, f->model));
    assert_non_null(strstr(err.msg, "not a GGUF file"));
    assert_int_equal(hashed, 0);

    /* with the magic repaired (and the mtime moved again) it re-hashes */
    poke(f->model, 0, "GGUF", 4);
    later.tv_sec += 1;
    set_mtime(f->model, later);
    file_sha(f->model, now_sha);
    assert_int_equal(identify_ok(f, f->model, 0, &a), 1);
    assert_string_equal(a.sha256, now_sha);
    assert_string_not_equal(a.sha256, TINY_LLAMA_SHA);
    assert_int_equal(a.shape.n_embd, 64);
    store_artifact_free(&a);
    assert_int_equal(identify_ok(f, f->model, 0, &a), 0);
    assert_string_equal(a.sha256, now_sha);
    store_artifact_free(&a);

    store_artifact *list;
    size_t n;
    assert_int_equal(store_artifact_list(f->s, &list, &n, &err), 0);
    assert_int_equal(n, 2); /* the original bytes and the changed ones */
    store_artifact_list_free(list, n);
}

/* Same bytes, same size and mtime, but a new inode (replaced by rename, as
 * downloaders do): the key no longer matches, so the file is hashed again. */
static void test_new_inode_rehashes(void **state)
{
    fx *f = *state;
    store_artifact a;
    assert_int_equal(identify_ok(f, f->model, 0, &a), 1);
    store_artifact_free(&a);
    struct stat before = stat_of(f->model);
    char *tmp = lvd_xasprintf("%s/tiny.gguf.part", f->dir);
    size_t n;
    char *data = tu_read(f->model, &n);
    tu_write(tmp, data, n);
    free(data);
    set_mtime(tmp, before.st_mtim);
    assert_int_equal(rename(tmp, f->model), 0);
    assert_true(stat_of(f->model).st_ino != before.st_ino);
    assert_int_equal(identify_ok(f, f->model, 0, &a), 1);
    assert_string_equal(a.sha256, TINY_LLAMA_SHA);
    store_artifact_free(&a);
    free(tmp);
}

/* A symlink and a relative path reach the cache entry of the real path; a
 * copy elsewhere is hashed once for its own path, to the same artifact. */
static void test_paths(void **state)
{
    fx *f = *state;
    store_artifact a;
    assert_int_equal(identify_ok(f, f->model, 0, &a), 1);
    store_artifact_free(&a);

    char *link = lvd_xasprintf("%s/link.gguf", f->dir);
    assert_int_equal(symlink(f->model, link), 0);
    assert_int_equal(identify_ok(f, link, 0, &a), 0);
    assert_string_equal(a.sha256, TINY_LLAMA_SHA);
    store_artifact_free(&a);

    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->dir), 0);
    int hashed = identify_ok(f, "./tiny.gguf", 0, &a);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(hashed, 0);
    store_artifact_free(&a);

    char *copy = lvd_xasprintf("%s/copy.gguf", f->dir);
    size_t n;
    char *data = tu_read(f->model, &n);
    tu_write(copy, data, n);
    free(data);
    assert_int_equal(identify_ok(f, copy, 0, &a), 1);
    assert_string_equal(a.sha256, TINY_LLAMA_SHA);
    assert_string_equal(a.last_path, copy);
    store_artifact_free(&a);
    assert_int_equal(identify_ok(f, copy, 0, &a), 0);
    store_artifact_free(&a);

    store_artifact *list;
    lvd_err err;
    assert_int_equal(store_artifact_list(f->s, &list, &n, &err), 0);
    assert_int_equal(n, 1);
    store_artifact_list_free(list, n);
    free(copy);
    free(link);
}

static void test_non_gguf(void **state)
{
    fx *f = *state;
    char *txt = lvd_xasprintf("%s/notes.txt", f->dir);
    tu_write_str(txt, "abc");
    store_artifact a;
    int hashed = -1;
    lvd_err err;
    assert_int_equal(store_identify(f->s, txt, 0, &a, &hashed, &err), -1);
    assert_non_null(strstr(err.msg, txt));
    assert_non_null(strstr(err.msg, "not a GGUF file"));
    assert_int_equal(hashed, 0);

    /* allowed: recorded by hash with no shape, and cached like any other */
    assert_int_equal(identify_ok(f, txt, 1, &a), 1);
    assert_string_equal(a.sha256,
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(a.size, 3);
    assert_int_equal(a.shape.known, 0);
    store_artifact_free(&a);
    assert_int_equal(identify_ok(f, txt, 1, &a), 0);
    store_artifact_free(&a);
    /* a cached non-GGUF is still refused when a GGUF is required */
    assert_int_equal(store_identify(f->s, txt, 0, &a, &hashed, &err), -1);
    assert_non_null(strstr(err.msg, "not a GGUF file"));
    assert_int_equal(hashed, 0);
    free(txt);
}

static void test_errors(void **state)
{
    fx *f = *state;
    char *missing = lvd_xasprintf("%s/missing.gguf", f->dir);
    store_artifact a;
    int hashed = -1;
    lvd_err err;
    assert_int_equal(store_identify(f->s, missing, 1, &a, &hashed, &err), -1);
    assert_non_null(strstr(err.msg, missing));
    assert_non_null(strstr(err.msg, "No such file"));
    assert_int_equal(hashed, 0);
    assert_int_equal(store_identify(f->s, f->dir, 1, &a, &hashed, &err), -1);
    assert_non_null(strstr(err.msg, "not a regular file"));
    free(missing);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cache_spares_reading, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_inode_rehashes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_non_gguf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
