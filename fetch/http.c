/* http.c: the common libcurl configuration and failure classification of
 * fetch/ (see http.h). Not for any particular request. */
#include "fetch/http.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USER_AGENT "llama-verdict/" LVD_VERSION " (lvd-fetch)"

static long env_seconds(const char *name, long fallback)
{
    const char *v = getenv(name);
    int64_t s;
    if (v && lvd_parse_duration(v, &s) == 0 && s > 0 && s < 86400)
        return (long)s;
    return fallback;
}

CURL *fetch_http_new(const char *url, int api, struct curl_slist **headers)
{
    static int initialised;
    if (!initialised) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        initialised = 1;
    }
    CURL *c = curl_easy_init();
    if (!c) {
        fprintf(stderr, "fatal: cannot create a libcurl handle\n");
        abort();
    }
    *headers = NULL;
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_USERAGENT, USER_AGENT);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    /* a redirect may never turn an https request into a plain one */
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR,
                     lvd_starts_with(url, "https:") ? "https" : "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 8L);
    /* TLS verification is always on; these are libcurl's defaults, spelled out */
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, env_seconds("LVD_FETCH_CONNECT_TIMEOUT", 20));
    if (api) {
        curl_easy_setopt(c, CURLOPT_TIMEOUT, env_seconds("LVD_FETCH_API_TIMEOUT", 60));
        curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
        *headers = curl_slist_append(*headers, "Accept: application/vnd.github+json");
        *headers = curl_slist_append(*headers, "X-GitHub-Api-Version: 2022-11-28");
        const char *token = getenv("GITHUB_TOKEN");
        if (token && *token) {
            /* sent only on API requests; libcurl drops it on a redirect to another host */
            char *h = lvd_xasprintf("Authorization: Bearer %s", token);
            *headers = curl_slist_append(*headers, h);
            memset(h, 0, strlen(h));
            free(h);
        }
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, *headers);
    } else {
        /* a transfer below 1 KiB/s for the stall limit is abandoned */
        curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
        curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, env_seconds("LVD_FETCH_STALL_TIMEOUT", 60));
    }
    return c;
}

fetch_net_kind fetch_http_classify(CURLcode rc)
{
    switch (rc) {
    case CURLE_OK:
        return FETCH_NET_OK;
    case CURLE_HTTP_RETURNED_ERROR:
        return FETCH_NET_HTTP;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
        return FETCH_NET_UNREACHABLE;
    case CURLE_OPERATION_TIMEDOUT:
        return FETCH_NET_STALLED;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_USE_SSL_FAILED:
        return FETCH_NET_TLS;
    case CURLE_PARTIAL_FILE:
        return FETCH_NET_TRUNCATED;
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return FETCH_NET_DROPPED;
    case CURLE_WRITE_ERROR:
        return FETCH_NET_WRITE;
    default:
        return FETCH_NET_OTHER;
    }
}

const char *fetch_http_host(const char *url)
{
    static char host[256];
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    const char *at = strpbrk(p, "@/");
    if (at && *at == '@') /* never show userinfo */
        p = at + 1;
    size_t n = strcspn(p, "/?#");
    if (n >= sizeof host)
        n = sizeof host - 1;
    memcpy(host, p, n);
    host[n] = '\0';
    return host;
}

void fetch_scrub_token(char *s)
{
    const char *token = getenv("GITHUB_TOKEN");
    if (!s || !token || !*token)
        return;
    size_t tl = strlen(token);
    size_t mask = tl < 3 ? tl : 3; /* the mask never makes the string longer */
    char *p = s, *hit;
    while ((hit = strstr(p, token))) {
        memset(hit, '*', mask);
        memmove(hit + mask, hit + tl, strlen(hit + tl) + 1);
        p = hit + mask;
    }
}

int fetch_errf(lvd_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        char buf[sizeof err->msg];
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        lvd_errf(err, "%s", buf);
        fetch_scrub_token(err->msg);
    }
    return -1;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

void fetch_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int fetch_interrupted(void)
{
    return interrupted;
}
