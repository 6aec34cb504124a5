/* testutil.c: helpers shared by the cmocka tests (see testutil.h). */
#include "tests/testutil.h"

#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *tu_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char *tmpl = lvd_xasprintf("%s/lvd-test-XXXXXX", base && *base ? base : "/tmp");
    assert_non_null(mkdtemp(tmpl));
    return tmpl;
}

void tu_tmpdir_free(char *dir)
{
    if (dir)
        lvd_rm_rf(dir);
    free(dir);
}

char *tu_shared(const char *rel)
{
    const char *shared = getenv("LVD_SHARED");
    if (!shared || !*shared)
        fail_msg("LVD_SHARED is not set (run the tests through ctest)");
    return lvd_xasprintf("%s/%s", shared, rel);
}

char *tu_source(const char *rel)
{
    const char *src = getenv("LVD_SOURCE");
    if (!src || !*src)
        fail_msg("LVD_SOURCE is not set (run the tests through ctest)");
    return lvd_xasprintf("%s/%s", src, rel);
}

void tu_write(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

void tu_write_str(const char *path, const char *s)
{
    tu_write(path, s, strlen(s));
}

char *tu_read(const char *path, size_t *n)
{
    lvd_sb sb = {0};
    lvd_err err;
    if (lvd_read_file(path, (size_t)1 << 30, &sb, &err) != 0)
        fail_msg("%s", err.msg);
    if (n)
        *n = sb.len;
    return lvd_sb_detach(&sb);
}

void tu_copy(const char *from, const char *to, unsigned mode)
{
    size_t n;
    char *data = tu_read(from, &n);
    tu_write(to, data, n);
    free(data);
    assert_int_equal(chmod(to, (mode_t)mode), 0);
}
