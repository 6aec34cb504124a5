/* fuzz_elf.c: libFuzzer harness for the ELF dynamic-section reader
 * (engine_elf_read). Each input is a whole file, written to a memfd that the
 * reader opens by its /proc/self/fd path (the reader preads only the parts it
 * needs, so it has no memory entry point). The reader must return 1 for what
 * is not ELF (short, bad magic, class or byte order) with out empty; -1 with
 * out empty and a message naming the path; or 0 with at most 4096 NEEDED
 * names, each a NUL-terminated string of the input, and at most 4096
 * RUNPATH entries, each non-empty, without ':', found in the input ended by
 * ':' or NUL. Never crash or leak. Seeded by scripts/fuzz from the ELF files
 * the build makes, small shared objects it links, and truncations of them. */
#include "engine/elf.h"
#include "tests/fuzz/fuzzutil.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 when s followed by one of the bytes in ends occurs in data. */
static int in_input(const uint8_t *data, size_t size, const char *s, const char *ends)
{
    size_t n = strlen(s);
    for (const uint8_t *p = data; size > n && (p = memmem(p, size - (size_t)(p - data) - 1, s, n)); p++)
        if (memchr(ends, p[n], strlen(ends) + 1)) /* the NUL of ends counts */
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz.elf", 0);
        FUZZ_CHECK(fd >= 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    FUZZ_CHECK(ftruncate(fd, 0) == 0 && (size == 0 || pwrite(fd, data, size, 0) == (ssize_t)size));
    engine_elf_dyn d;
    lvd_err err;
    int rc = engine_elf_read(path, &d, &err);
    int not_elf = size < 52 || memcmp(data, "\177ELF", 4) || (data[4] != 1 && data[4] != 2) ||
                  (data[5] != 1 && data[5] != 2) || (data[4] == 2 && size < 64);
    FUZZ_CHECK(rc >= -1 && rc <= 1);
    FUZZ_CHECK(!not_elf || rc == 1);
    if (rc != 0) {
        FUZZ_CHECK(!d.needed && !d.n_needed && !d.runpath && !d.n_runpath);
        FUZZ_CHECK(rc == 1 || fuzz_names(&err, path));
        return 0;
    }
    FUZZ_CHECK(d.n_needed <= 4096 && d.n_runpath <= 4096);
    FUZZ_CHECK((d.n_needed == 0 || d.needed) && (d.n_runpath == 0 || d.runpath));
    for (size_t i = 0; i < d.n_needed; i++)
        FUZZ_CHECK(in_input(data, size, d.needed[i], ""));
    for (size_t i = 0; i < d.n_runpath; i++) {
        const char *r = d.runpath[i];
        FUZZ_CHECK(*r && !strchr(r, ':') && in_input(data, size, r, ":"));
    }
    engine_elf_free(&d);
    FUZZ_CHECK(!d.needed && !d.n_needed && !d.runpath && !d.n_runpath);
    return 0;
}
