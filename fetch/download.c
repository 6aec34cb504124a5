/* download.c: one streaming pass, network -> (SHA-256, file), with the
 * failure of each kind told apart (see download.h). */
#include "fetch/download.h"

#include "common/cli.h"
#include "common/sha256.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct sink {
    int fd;
    lvd_sha256 *hash;
    uint64_t bytes;
    int write_errno;
    int64_t started_ms;
    int64_t last_draw_ms;
} sink;

const char *fetch_human_bytes(double bytes, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t u = 0;
    while (bytes >= 1024 && u + 1 < LVD_ARRAY_LEN(units)) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

static size_t on_data(char *data, size_t size, size_t nmemb, void *user)
{
    sink *s = user;
    size_t n = size * nmemb;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(s->fd, data + done, n - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            s->write_errno = errno;
            return 0; /* libcurl stops with CURLE_WRITE_ERROR */
        }
        done += (size_t)w;
    }
    lvd_sha256_update(s->hash, data, n);
    s->bytes += n;
    return n;
}

static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)ultotal;
    (void)ulnow;
    sink *s = user;
    if (fetch_interrupted())
        return 1; /* libcurl stops with CURLE_ABORTED_BY_CALLBACK */
    if (!lvd_progress_enabled())
        return 0;
    int64_t now = lvd_mono_ms();
    if (now - s->last_draw_ms < 200)
        return 0;
    s->last_draw_ms = now;
    double secs = (double)(now - s->started_ms) / 1000.0;
    double rate = secs > 0 ? (double)dlnow / secs : 0;
    char got[32], total[32], speed[32], eta[32] = "--:--";
    fetch_human_bytes((double)dlnow, got, sizeof got);
    fetch_human_bytes((double)dltotal, total, sizeof total);
    fetch_human_bytes(rate, speed, sizeof speed);
    if (dltotal > 0 && rate > 0 && dlnow <= dltotal) {
        long left = (long)((double)(dltotal - dlnow) / rate + 0.5);
        snprintf(eta, sizeof eta, "%ld:%02ld", left / 60, left % 60);
    }
    if (dltotal > 0)
        lvd_progress("downloading %s / %s (%3.0f%%)  %s/s  ETA %s", got, total,
                     100.0 * (double)dlnow / (double)dltotal, speed, eta);
    else
        lvd_progress("downloading %s  %s/s", got, speed);
    return 0;
}

static int fail(fetch_dl *out, fetch_net_kind kind, lvd_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(fetch_dl *out, fetch_net_kind kind, lvd_err *err, const char *fmt, ...)
{
    out->kind = kind;
    char buf[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return fetch_errf(err, "%s", buf);
}

/* The error of a transfer libcurl ended with rc, in words naming what
 * failed and how far it got; always -1 (out->kind set). */
static int transfer_failed(const char *url, const char *path, const sink *s, CURLcode rc, const char *errbuf,
                           curl_off_t clen, fetch_dl *out, lvd_err *err)
{
    const char *host = fetch_http_host(url);
    char got[32];
    fetch_human_bytes((double)s->bytes, got, sizeof got);
    fetch_net_kind kind = fetch_interrupted() ? FETCH_NET_INTERRUPTED : fetch_http_classify(rc);
    const char *detail = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    switch (kind) {
    case FETCH_NET_HTTP:
        return fail(out, kind, err, "download: HTTP %ld for %s", out->http_code, url);
    case FETCH_NET_WRITE:
        if (s->write_errno)
            return fail(out, kind, err, "%s: write failed after %s: %s", path, got, strerror(s->write_errno));
        return fail(out, kind, err, "%s: write failed after %s", path, got);
    case FETCH_NET_TRUNCATED:
        if (clen >= 0)
            return fail(out, kind, err, "download from %s truncated: got %llu of %lld bytes", host,
                        (unsigned long long)s->bytes, (long long)clen);
        return fail(out, kind, err, "download from %s truncated after %s: %s", host, got, detail);
    case FETCH_NET_DROPPED:
        return fail(out, kind, err, "connection to %s dropped after %s: %s", host, got, detail);
    case FETCH_NET_STALLED:
        return fail(out, kind, err, "download from %s stalled or timed out after %s: %s", host, got, detail);
    case FETCH_NET_UNREACHABLE:
        return fail(out, kind, err, "cannot reach %s: %s", host, detail);
    case FETCH_NET_INTERRUPTED:
        return fail(out, kind, err, "download from %s interrupted by signal %d after %s", host,
                    fetch_interrupted(), got);
    case FETCH_NET_TLS:
        return fail(out, kind, err, "TLS failure with %s: %s", host, detail);
    default:
        return fail(out, FETCH_NET_OTHER, err, "download from %s failed after %s: %s", host, got, detail);
    }
}

int fetch_download(const char *url, int fd, const char *path, int64_t expected_size, fetch_dl *out,
                   lvd_err *err)
{
    memset(out, 0, sizeof *out);
    sink s = {.fd = fd, .hash = lvd_sha256_new(), .started_ms = lvd_mono_ms()};
    struct curl_slist *headers;
    CURL *h = fetch_http_new(url, 0, &headers);
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L * 1024);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    /* the callback draws the progress line (terminal only) and notices signals */
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, &s);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    CURLcode rc = curl_easy_perform(h);
    curl_off_t clen = -1;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->http_code);
    curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &clen);
    curl_easy_cleanup(h);
    lvd_progress_done();
    out->bytes = s.bytes;

    int r = 0;
    if (rc != CURLE_OK) {
        r = transfer_failed(url, path, &s, rc, errbuf, clen, out, err);
    } else if (expected_size >= 0 && s.bytes != (uint64_t)expected_size) {
        char want[32];
        fetch_human_bytes((double)expected_size, want, sizeof want);
        r = fail(out, FETCH_NET_TRUNCATED, err,
                 "download from %s: got %llu bytes, the release lists %lld (%s)", fetch_http_host(url),
                 (unsigned long long)s.bytes, (long long)expected_size, want);
    }
    if (r != 0) {
        lvd_sha256_abort(s.hash);
        return -1;
    }
    lvd_sha256_final(s.hash, out->sha256);
    out->kind = FETCH_NET_OK;
    return 0;
}
