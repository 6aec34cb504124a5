/* sha256.c: SHA-256 through OpenSSL's EVP interface (see sha256.h). Files are
 * streamed by a reader thread into a ring of large buffers while the calling
 * thread hashes, so reading overlaps hashing and the file hash runs at the
 * CPU's SHA-256 speed (perf/perf_sha256.c measures it against
 * `openssl speed`); several files are hashed at once on a bounded pool of
 * threads (perf/perf_shards.c). libcrypto is loaded on the first hash
 * (dlopen of libcrypto.so.3, its few entry points resolved once), so that a
 * tool whose run hashes nothing (a warm lvd select) does not relocate it at
 * every start. Not for deciding what to hash (store/identify.c). */
#include "common/sha256.h"
#include "common/cli.h"
#include "common/parallel.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The EVP calls, resolved from libcrypto at the first hash. */
#define SHA_FUNCS(X) X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_DigestInit_ex) X(EVP_DigestUpdate) \
    X(EVP_DigestFinal_ex) X(EVP_sha256)

static struct {
#define SHA_FIELD(f) __typeof__(f) *f;
    SHA_FUNCS(SHA_FIELD)
#undef SHA_FIELD
} crypto;

static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;
static const char *crypto_missing; /* why the load failed; NULL once loaded */

static void crypto_load(void)
{
    const char *path = getenv("LVD_LIBCRYPTO_LIBRARY");
    void *lib = dlopen(path && *path ? path : "libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        crypto_missing = dlerror();
        return;
    }
    struct { void **fn; const char *sym; } t[] = {
#define SHA_ENTRY(f) {(void **)&crypto.f, #f},
        SHA_FUNCS(SHA_ENTRY)
#undef SHA_ENTRY
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(t) && !crypto_missing; i++)
        if (!(*t[i].fn = dlsym(lib, t[i].sym)))
            crypto_missing = dlerror();
}

/* Every hash starts here: a missing libcrypto ($LVD_LIBCRYPTO_LIBRARY names
 * another file, for the tests) is one line and exit 1: the library is a
 * dependency of the package, nothing a caller could recover from. */
static void crypto_need(void)
{
    pthread_once(&crypto_once, crypto_load);
    if (crypto_missing) {
        fprintf(stderr, "fatal: SHA-256 needs libcrypto.so.3 (Debian package libssl3): %s\n", crypto_missing);
        exit(LVD_EXIT_FAIL);
    }
}

struct lvd_sha256 {
    EVP_MD_CTX *ctx;
};

lvd_sha256 *lvd_sha256_new(void)
{
    crypto_need();
    lvd_sha256 *h = lvd_xcalloc(1, sizeof *h);
    h->ctx = crypto.EVP_MD_CTX_new();
    if (!h->ctx || crypto.EVP_DigestInit_ex(h->ctx, crypto.EVP_sha256(), NULL) != 1) {
        fprintf(stderr, "fatal: OpenSSL cannot initialise SHA-256\n");
        abort();
    }
    return h;
}

void lvd_sha256_update(lvd_sha256 *h, const void *data, size_t n)
{
    if (n > 0 && crypto.EVP_DigestUpdate(h->ctx, data, n) != 1) {
        fprintf(stderr, "fatal: OpenSSL SHA-256 update failed\n");
        abort();
    }
}

void lvd_sha256_final(lvd_sha256 *h, char hex[LVD_SHA256_HEX_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (crypto.EVP_DigestFinal_ex(h->ctx, md, &len) != 1 || len != LVD_SHA256_HEX_LEN / 2) {
        fprintf(stderr, "fatal: OpenSSL SHA-256 final failed\n");
        abort();
    }
    for (unsigned int i = 0; i < len; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[LVD_SHA256_HEX_LEN] = '\0';
    lvd_sha256_abort(h);
}

void lvd_sha256_abort(lvd_sha256 *h)
{
    if (!h)
        return;
    crypto.EVP_MD_CTX_free(h->ctx);
    free(h);
}

int lvd_sha256_valid(const char *s)
{
    if (!s)
        return 0;
    for (int i = 0; i < LVD_SHA256_HEX_LEN; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return s[LVD_SHA256_HEX_LEN] == '\0';
}

/* --- streaming a file ---------------------------------------------------- */

/* Ring of RING_N buffers of RING_BUF bytes: the reader thread fills slot
 * head % RING_N, the hasher drains slot tail % RING_N. 1 MiB reads keep the
 * syscall count low while a buffer still sits in the cache hierarchy. */
#define RING_N 4
#define RING_BUF ((size_t)1 << 20)

typedef struct ring {
    int fd;
    unsigned char *buf[RING_N];
    ssize_t len[RING_N];  /* > 0 data, 0 end of file, -1 error (errno in err_no) */
    int err_no;
    unsigned long head, tail;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} ring;

/* Fills buf as far as the file allows: n bytes, fewer at the end, -1 on error. */
static ssize_t read_full(int fd, unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

static void *reader_main(void *arg)
{
    ring *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (r->head - r->tail == RING_N && !r->stop)
            pthread_cond_wait(&r->cv, &r->mu);
        int stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (stop)
            return NULL;
        unsigned slot = (unsigned)(r->head % RING_N);
        ssize_t n = read_full(r->fd, r->buf[slot], RING_BUF);
        int e = errno;
        pthread_mutex_lock(&r->mu);
        r->len[slot] = n;
        if (n < 0)
            r->err_no = e;
        r->head++;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        if (n <= 0)
            return NULL;
    }
}

/* Hashes everything the reader delivers; 0, or -1 with *err_no set. */
static int drain(ring *r, lvd_sha256 *h, uint64_t *total, int *err_no)
{
    for (;;) {
        pthread_mutex_lock(&r->mu);
        while (r->head == r->tail)
            pthread_cond_wait(&r->cv, &r->mu);
        unsigned slot = (unsigned)(r->tail % RING_N);
        ssize_t n = r->len[slot];
        *err_no = r->err_no;
        pthread_mutex_unlock(&r->mu);
        if (n <= 0)
            return n == 0 ? 0 : -1;
        lvd_sha256_update(h, r->buf[slot], (size_t)n);
        *total += (uint64_t)n;
        pthread_mutex_lock(&r->mu);
        r->tail++;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
}

int lvd_sha256_file(const char *path, char hex[LVD_SHA256_HEX_LEN + 1], uint64_t *bytes,
                    lvd_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lvd_errf(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    int bad = fstat(fd, &sb) != 0 ? errno : S_ISDIR(sb.st_mode) ? EISDIR : 0;
    if (bad) {
        close(fd);
        return lvd_errf(err, "%s: cannot hash: %s", path, strerror(bad));
    }
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);

    ring r = {.fd = fd};
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    for (int i = 0; i < RING_N; i++)
        r.buf[i] = lvd_xmalloc(RING_BUF);
    lvd_sha256 *h = lvd_sha256_new();
    uint64_t total = 0;
    int rc, err_no = 0;
    pthread_t tid;
    int e = pthread_create(&tid, NULL, reader_main, &r);
    if (e != 0) {
        /* no thread: read and hash in turn on this one */
        ssize_t n;
        while ((n = read_full(fd, r.buf[0], RING_BUF)) > 0) {
            lvd_sha256_update(h, r.buf[0], (size_t)n);
            total += (uint64_t)n;
        }
        err_no = errno;
        rc = n < 0 ? -1 : 0;
    } else {
        rc = drain(&r, h, &total, &err_no);
        pthread_mutex_lock(&r.mu);
        r.stop = 1;
        pthread_cond_broadcast(&r.cv);
        pthread_mutex_unlock(&r.mu);
        pthread_join(tid, NULL);
    }
    for (int i = 0; i < RING_N; i++)
        free(r.buf[i]);
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
    close(fd);
    if (rc != 0) {
        lvd_sha256_abort(h);
        return lvd_errf(err, "%s: read error after %llu bytes: %s", path,
                        (unsigned long long)total, strerror(err_no));
    }
    lvd_sha256_final(h, hex);
    if (bytes)
        *bytes = total;
    return 0;
}

/* --- several files at once ------------------------------------------------ */

typedef struct files_job {
    char *const *files;
    char (*hex)[LVD_SHA256_HEX_LEN + 1];
    uint64_t *bytes;
    lvd_err *errs;    /* one per file */
    int *rc;          /* one per file */
} files_job;

static void hash_one(size_t i, void *ctx)
{
    files_job *j = ctx;
    j->rc[i] = lvd_sha256_file(j->files[i], j->hex[i], &j->bytes[i], &j->errs[i]);
}

int lvd_sha256_files(char *const *files, size_t n, unsigned max_threads,
                     char (*hex)[LVD_SHA256_HEX_LEN + 1], uint64_t *bytes, lvd_err *err)
{
    files_job j = {.files = files, .hex = hex};
    j.bytes = lvd_xcalloc(n ? n : 1, sizeof *j.bytes);
    j.errs = lvd_xcalloc(n ? n : 1, sizeof *j.errs);
    j.rc = lvd_xcalloc(n ? n : 1, sizeof *j.rc);
    lvd_parallel_for(n, max_threads, hash_one, &j);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (j.rc[i] != 0)
            rc = lvd_errf(err, "%s", j.errs[i].msg);
    if (bytes && rc == 0)
        memcpy(bytes, j.bytes, n * sizeof *bytes);
    free(j.bytes);
    free(j.errs);
    free(j.rc);
    return rc;
}
