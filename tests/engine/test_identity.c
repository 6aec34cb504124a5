/* test_identity.c: an engine's identity (engine/files.c, elf.c, backends.c,
 * cudaarch.c, digest.c): the ELF reader on a real binary, on synthetic
 * files with NEEDED and $ORIGIN RUNPATH entries and on malformed ones; the
 * file set of a PREFIX/bin + PREFIX/lib layout (what counts, what does not);
 * change, appearance and removal named; the backends carried and the
 * present-but-no-device note; CUDA archs from the real H200 capture and the
 * arch flag; the digest by its definition, with the hash cache. */
#include "tests/support/testutil.h"

#include "engine/backends.h"
#include "engine/cudaarch.h"
#include "engine/devices.h"
#include "engine/digest.h"
#include "engine/elf.h"
#include "engine/files.h"
#include "common/sha256.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef tu_storefx fx;

static void put64(unsigned char *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A minimal ELF64 little-endian file at path: a .dynstr and a .dynamic with
 * DT_NEEDED for each of needed[] and one DT_RUNPATH runpath (NULL: none).
 * bad_offset puts the dynamic section's offset past the end of the file. */
static void write_elf(const char *path, const char *const *needed, size_t n, const char *runpath, int bad_offset)
{
    unsigned char buf[4096];
    memset(buf, 0, sizeof buf);
    memcpy(buf, "\177ELF\2\1\1", 7);
    size_t str = 64, at = str + 1; /* dynstr starts with "\0" */
    uint64_t offs[9];
    for (size_t i = 0; i < n; i++) {
        offs[i] = at - str;
        memcpy(buf + at, needed[i], strlen(needed[i]) + 1);
        at += strlen(needed[i]) + 1;
    }
    uint64_t rp = at - str;
    if (runpath) {
        memcpy(buf + at, runpath, strlen(runpath) + 1);
        at += strlen(runpath) + 1;
    }
    size_t strsz = at - str, dyn = (at + 7) & ~(size_t)7, d = dyn;
    for (size_t i = 0; i < n; i++, d += 16) {
        put64(buf + d, 1, 8);
        put64(buf + d + 8, offs[i], 8);
    }
    if (runpath) {
        put64(buf + d, 29, 8);
        put64(buf + d + 8, rp, 8);
        d += 16;
    }
    d += 16; /* DT_NULL */
    size_t sh = d;
    put64(buf + 0x28, sh, 8);
    put64(buf + 0x3A, 64, 2);
    put64(buf + 0x3C, 3, 2);
    unsigned char *s1 = buf + sh + 64, *s2 = buf + sh + 128;
    put64(s1 + 4, 3, 4);
    put64(s1 + 24, str, 8);
    put64(s1 + 32, strsz, 8);
    put64(s2 + 4, 6, 4);
    put64(s2 + 24, bad_offset ? 1u << 20 : dyn, 8);
    put64(s2 + 32, d - dyn, 8);
    put64(s2 + 40, 1, 4);
    tu_write(path, buf, sh + 192);
    chmod(path, 0755);
}

static void test_elf(void **state)
{
    (void)state;
    lvd_err err = {{0}};
    engine_elf_dyn dyn;
    char *helper = lvd_xasprintf("%s/proc-helper", getenv("LVD_TEST_BIN"));
    assert_int_equal(engine_elf_read(helper, &dyn, &err), 0); /* a real binary: it needs libc */
    int libc = 0;
    for (size_t i = 0; i < dyn.n_needed; i++)
        libc |= lvd_starts_with(dyn.needed[i], "libc.so");
    assert_true(libc);
    engine_elf_free(&dyn);
    free(helper);

    char *tmp = tu_tmpdir();
    char *path = lvd_xasprintf("%s/x.so", tmp);
    const char *needed[] = {"libllama.so.0", "libggml-base.so.0"};
    write_elf(path, needed, 2, "$ORIGIN:$ORIGIN/../lib", 0);
    assert_int_equal(engine_elf_read(path, &dyn, &err), 0);
    assert_int_equal(dyn.n_needed, 2);
    assert_string_equal(dyn.needed[1], "libggml-base.so.0");
    assert_int_equal(dyn.n_runpath, 2);
    assert_string_equal(dyn.runpath[1], "$ORIGIN/../lib");
    engine_elf_free(&dyn);
    write_elf(path, needed, 2, NULL, 1);
    assert_int_equal(engine_elf_read(path, &dyn, &err), -1);
    assert_non_null(strstr(err.msg, "malformed"));
    write_elf(path, needed, 2, NULL, 0); /* the section header table (read whole) cut short */
    assert_int_equal(truncate(path, 64 + 200), 0);
    assert_int_equal(engine_elf_read(path, &dyn, &err), -1);
    assert_non_null(strstr(err.msg, "malformed"));
    tu_write_str(path, "#!/bin/sh\n");
    assert_int_equal(engine_elf_read(path, &dyn, &err), 1); /* not ELF */
    assert_int_equal(dyn.n_needed, 0);
    free(path);
    tu_tmpdir_free(tmp);
}

static void file_at(const char *dir, const char *rel, const char *text)
{
    char *p = lvd_xasprintf("%s/%s", dir, rel);
    tu_write_str(p, text);
    free(p);
}

static void set_mtime(const char *path, time_t t)
{
    struct timespec ts[2] = {{.tv_sec = t}, {.tv_sec = t}};
    assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* PREFIX/bin/llama-bench needs libllama.so via $ORIGIN/../lib; PREFIX/lib
 * holds it, what it needs, a backend module and an unrelated library. */
static char *make_prefix(const char *tmp)
{
    char *bin = lvd_xasprintf("%s/pfx/bin", tmp), *lib = lvd_xasprintf("%s/pfx/lib", tmp);
    lvd_err err = {{0}};
    assert_int_equal(lvd_mkdir_p(bin, &err), 0);
    assert_int_equal(lvd_mkdir_p(lib, &err), 0);
    char *p = lvd_xasprintf("%s/llama-bench", bin);
    const char *n1[] = {"libllama.so", "libc.so.6"};
    write_elf(p, n1, 2, "$ORIGIN/../lib:$ORIGIN/../../elsewhere:/usr/lib", 0);
    free(p);
    p = lvd_xasprintf("%s/libllama.so", lib);
    const char *n2[] = {"libggml-base.so"};
    write_elf(p, n2, 1, "$ORIGIN", 0);
    free(p);
    file_at(lib, "libggml-base.so", "base");
    file_at(lib, "libggml-cuda.so", "cuda module");
    file_at(lib, "libunrelated.so", "not needed");
    file_at(bin, "libggml-vulkan.so", "vulkan module");
    file_at(bin, "notes.txt", "not a library");
    char *outside = lvd_xasprintf("%s/elsewhere", tmp);
    assert_int_equal(lvd_mkdir_p(outside, &err), 0);
    file_at(outside, "libllama.so", "outside the tree");
    free(outside);
    free(lib);
    return bin;
}

static void test_file_set(void **state)
{
    (void)state;
    char *tmp = tu_tmpdir(), *bin = make_prefix(tmp);
    engine_fileset fs;
    lvd_err err = {{0}};
    assert_int_equal(engine_files_list(bin, &fs, &err), 0);
    const char *want[] = {"../lib/libggml-base.so", "../lib/libggml-cuda.so", "../lib/libllama.so",
                          "libggml-vulkan.so", "llama-bench"};
    assert_int_equal(fs.n, LVD_ARRAY_LEN(want));
    for (size_t i = 0; i < fs.n; i++)
        assert_string_equal(fs.v[i].rel, want[i]);
    char backends[64];
    engine_backends_of(&fs, backends, sizeof backends);
    assert_string_equal(backends, "cuda,vulkan");

    char *key = engine_files_key(&fs);
    engine_files_change ch;
    char text[256];
    assert_int_equal(engine_files_compare(key, &fs, &ch), 1);
    char *lib = lvd_xasprintf("%s/pfx/lib/libllama.so", tmp);
    set_mtime(lib, 1700000000);
    engine_fileset now;
    assert_int_equal(engine_files_list(bin, &now, &err), 0);
    assert_int_equal(engine_files_compare(key, &now, &ch), 0);
    engine_files_change_text(&ch, "the verdict", text, sizeof text);
    assert_string_equal(text, "../lib/libllama.so changed since the verdict (mtime)");
    engine_fileset_free(&now);

    file_at(bin, "libggml-cpu-haswell.so", "a new tier module");
    assert_int_equal(engine_files_list(bin, &now, &err), 0);
    free(key);
    key = engine_files_key(&now);
    engine_fileset_free(&now);
    char *mod = lvd_xasprintf("%s/libggml-cpu-haswell.so", bin);
    assert_int_equal(unlink(mod), 0);
    assert_int_equal(engine_files_list(bin, &now, &err), 0);
    assert_int_equal(engine_files_compare(key, &now, &ch), 0);
    engine_files_change_text(&ch, "the last probe", text, sizeof text);
    assert_string_equal(text, "libggml-cpu-haswell.so is gone since the last probe");
    free(key);
    key = engine_files_key(&now);
    file_at(bin, "libggml-cpu-haswell.so", "back");
    engine_fileset_free(&now);
    assert_int_equal(engine_files_list(bin, &now, &err), 0);
    assert_int_equal(engine_files_compare(key, &now, &ch), 0);
    assert_int_equal(ch.kind, ENGINE_FILES_APPEARED);
    assert_string_equal(ch.file, "libggml-cpu-haswell.so");
    assert_int_equal(engine_files_compare(NULL, &now, &ch), 0);
    engine_files_change_text(&ch, "the last probe", text, sizeof text);
    assert_string_equal(text, "no file set was recorded with the last probe");
    assert_int_equal(engine_files_compare("garbage without tabs\n", &now, &ch), 0);
    assert_int_equal(ch.kind, ENGINE_FILES_UNRECORDED);
    /* a line short of a number, or with anything after its inode, is not a key */
    const char *bad[] = {"libllama.so\t1\t2\n", "libllama.so\t1\t2\t3x\n", "libllama.so\t1\tx\t3\n",
                         "libllama.so\t1\t2\t3\t4\n", "libllama.so\t99999999999999999999\t2\t3\n"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        assert_int_equal(engine_files_compare(bad[i], &now, &ch), 0);
        assert_int_equal(ch.kind, ENGINE_FILES_UNRECORDED);
    }
    engine_fileset_free(&now);
    assert_int_equal(engine_files_list("/nonexistent/engine", &now, &err), -1);
    free(mod);
    free(lib);
    free(key);
    engine_fileset_free(&fs);
    free(bin);
    tu_tmpdir_free(tmp);
}

static lvd_device dev(const char *selector, const char *backend, const char *cc)
{
    lvd_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.selector, sizeof d.selector, "%s", selector);
    snprintf(d.backend, sizeof d.backend, "%s", backend);
    snprintf(d.compute_cap, sizeof d.compute_cap, "%s", cc);
    return d;
}

static void test_backends_and_note(void **state)
{
    (void)state;
    /* the real Vulkan build's file names (/work/shared/engines/llama.cpp-b9749-vulkan) */
    engine_file files[] = {{.rel = "libggml-base.so.0"}, {.rel = "libggml-cpu.so.0"}, {.rel = "libggml-vulkan.so.0"},
                           {.rel = "libggml.so.0"},      {.rel = "libllama.so.0"},    {.rel = "llama-bench"}};
    char *needed[] = {"libcudart.so.12", NULL};
    engine_fileset fs = {.v = files, .n = LVD_ARRAY_LEN(files)};
    char b[64];
    engine_backends_of(&fs, b, sizeof b);
    assert_string_equal(b, "cpu,vulkan");
    fs.needed = needed;
    fs.n_needed = 1; /* a CUDA runtime among the NEEDED entries */
    engine_backends_of(&fs, b, sizeof b);
    assert_string_equal(b, "cpu,cuda,vulkan");
    engine_backends_of(&fs, b, 9); /* what does not fit is left out whole */
    assert_string_equal(b, "cpu,cuda");

    char *note = engine_backends_no_device("cpu,vulkan", NULL, 0);
    assert_string_equal(note, "Vulkan backend present, no Vulkan device (driver missing?)");
    free(note);
    lvd_device d[] = {dev("Vulkan0", "vulkan", ""), dev("CUDA0", "cuda", "9.0")};
    assert_null(engine_backends_no_device("cpu,vulkan", d, 1));
    note = engine_backends_no_device("cpu,cuda,vulkan", d + 1, 1);
    assert_string_equal(note, "Vulkan backend present, no Vulkan device (driver missing?)");
    free(note);
    note = engine_backends_no_device("cuda,rocm", NULL, 0);
    assert_string_equal(note, "CUDA backend present, no CUDA device (driver missing?); "
                              "ROCm backend present, no ROCm device (driver missing?)");
    free(note);
    assert_null(engine_backends_no_device("blas,cpu,rpc", NULL, 0)); /* they list no devices anyway */
    /* the real Vulkan build without a GPU, and with lavapipe made visible */
    static const char *const caps[] = {"list-devices-hidden", "list-devices"};
    for (size_t i = 0; i < 2; i++) {
        char *rel = lvd_xasprintf("llama.cpp/vulkan-lavapipe-b9749/%s.stdout", caps[i]);
        char *path = tu_fixture(rel), *out = tu_read(path, NULL);
        lvd_device *devs;
        size_t n;
        lvd_err err = {{0}};
        assert_int_equal(engine_devices_parse(out, NULL, &devs, &n, &err), 0);
        assert_int_equal(n, i);
        note = engine_backends_no_device("cpu,vulkan", devs, n);
        if (i == 0)
            assert_string_equal(note, "Vulkan backend present, no Vulkan device (driver missing?)");
        else
            assert_null(note);
        free(note);
        free(devs);
        free(out);
        free(path);
        free(rel);
    }
    assert_null(engine_backends_no_device("", NULL, 0));
}

static void test_cuda_archs(void **state)
{
    (void)state;
    char archs[64];
    char *path = tu_fixture("llama.cpp/gpu-h200/ppl-cuda.err");
    char *log = tu_read(path, NULL);
    assert_int_equal(engine_cuda_archs_parse(log, archs, sizeof archs), 1);
    assert_string_equal(archs, "900");
    free(log);
    free(path);
    path = tu_fixture("llama.cpp/cpu-build-b9749/perplexity.stderr");
    log = tu_read(path, NULL);
    assert_int_equal(engine_cuda_archs_parse(log, archs, sizeof archs), 0);
    assert_string_equal(archs, "");
    free(log);
    free(path);
    assert_int_equal(engine_cuda_archs_parse("| CUDA : ARCHS = 500,610,700,750,800,860,890 | USE_GRAPHS = 1 |",
                                             archs, sizeof archs), 1);
    assert_string_equal(archs, "500,610,700,750,800,860,890");

    lvd_device h200 = dev("CUDA0", "cuda", "9.0"), ada = dev("CUDA1", "cuda", "8.9");
    lvd_device vk = dev("Vulkan0", "vulkan", ""), unknown = dev("CUDA2", "cuda", "");
    assert_int_equal(engine_cuda_arch_missing("900", &h200), 0);
    assert_int_equal(engine_cuda_arch_missing("900", &ada), 1);
    assert_int_equal(engine_cuda_arch_missing("860", &ada), 0); /* an sm_86 cubin runs on 8.9 */
    assert_int_equal(engine_cuda_arch_missing("890", &h200), 1); /* not across majors */
    assert_int_equal(engine_cuda_arch_missing("", &ada), 0);
    assert_int_equal(engine_cuda_arch_missing("900", &vk), 0);
    assert_int_equal(engine_cuda_arch_missing("900", &unknown), 0);
    char flag[256];
    engine_cuda_arch_flag("900", &ada, flag, sizeof flag);
    assert_string_equal(flag, "cc 8.9 is not among the build's CUDA archs (900): it would JIT-compile for minutes or fail");
    engine_cuda_arch_flag("900", &h200, flag, sizeof flag);
    assert_string_equal(flag, "");
}

/* The digest by its definition: SHA-256 of "HEX  REL\n" lines, computed
 * here from common/sha256 of each file; a second digest reads nothing. */
static void test_digest(void **state)
{
    fx *f = *state;
    char *bin = make_prefix(f->dir);
    engine_fileset fs;
    lvd_err err = {{0}};
    assert_int_equal(engine_files_list(bin, &fs, &err), 0);
    lvd_sb text = {0};
    for (size_t i = 0; i < fs.n; i++) {
        char one[65];
        uint64_t bytes;
        assert_int_equal(lvd_sha256_file(fs.v[i].path, one, &bytes, &err), 0);
        lvd_sb_addf(&text, "%s  %s\n", one, fs.v[i].rel);
    }
    lvd_sha256 *h = lvd_sha256_new();
    lvd_sha256_update(h, text.buf, text.len);
    char want[65], got[65];
    lvd_sha256_final(h, want);
    size_t hashed = 99;
    if (engine_digest(f->s, bin, got, &hashed, &err))
        fail_msg("%s", err.msg);
    assert_string_equal(got, want);
    assert_int_equal(hashed, fs.n);
    assert_int_equal(engine_digest(f->s, bin, got, &hashed, &err), 0);
    assert_string_equal(got, want);
    assert_int_equal(hashed, 0); /* the cache answered for every file */
    char *mod = lvd_xasprintf("%s/libggml-vulkan.so", bin);
    tu_write_str(mod, "another vulkan module");
    assert_int_equal(engine_digest(f->s, bin, got, &hashed, &err), 0);
    assert_int_equal(hashed, 1);
    assert_string_not_equal(got, want);
    free(mod);
    lvd_sb_free(&text);
    engine_fileset_free(&fs);
    free(bin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elf),
        cmocka_unit_test(test_file_set),
        cmocka_unit_test(test_backends_and_note),
        cmocka_unit_test(test_cuda_archs),
        cmocka_unit_test_setup_teardown(test_digest, tu_store_setup, tu_store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
