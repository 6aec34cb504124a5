/* testutil.h: helpers shared by the cmocka tests: temporary directories,
 * paths into ../shared, writing files, and a fresh store per test. */
#ifndef LVD_TESTUTIL_H
#define LVD_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* A fresh directory under $TMPDIR, removed by tu_tmpdir_free. */
char *tu_tmpdir(void);
void tu_tmpdir_free(char *dir);
/* $LVD_SHARED/rel (fails the test when LVD_SHARED is unset); malloc'd. */
char *tu_shared(const char *rel);
/* $LVD_SOURCE/rel; malloc'd. */
char *tu_source(const char *rel);
/* Writes n bytes to path (fails the test on error). */
void tu_write(const char *path, const void *data, size_t n);
void tu_write_str(const char *path, const char *s);
/* Reads a whole file into a malloc'd NUL-terminated string. */
char *tu_read(const char *path, size_t *n);
/* Copies file from to to and sets its mode (fails the test on error). */
void tu_copy(const char *from, const char *to, unsigned mode);

#endif
