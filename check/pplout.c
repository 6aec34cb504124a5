/* pplout.c: the llama-perplexity output parser (see pplout.h), with PCRE2,
 * against the captures in tests/fixtures/llama.cpp (cpu-build-b9749/
 * perplexity*, gpu-h200/ppl-*). Not for running anything. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "check/pplout.h"

#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHUNKS 100000 /* bound on hostile output */

/* A number as llama.cpp prints it with %f / %e, or nan / -nan / inf. */
#define NUM "(-?(?:nan|inf|[0-9]+(?:\\.[0-9]*)?(?:[eE][-+]?[0-9]+)?))"
/* "±" in UTF-8, matched as bytes */
#define PM "\\s*\xc2\xb1\\s*"

static const char RX_CHUNK[] = "\\[(\\d{1,9})\\]" NUM ",";
static const char RX_FINAL[] = "Final estimate: PPL = " NUM " \\+/- " NUM;
static const char RX_PPL_Q[] = "(?m)^Mean PPL\\(Q\\)\\s*:\\s*" NUM PM NUM;
static const char RX_PPL_BASE[] = "(?m)^Mean PPL\\(base\\)\\s*:\\s*" NUM PM NUM;
static const char RX_PPL_RATIO[] = "(?m)^Mean PPL\\(Q\\)/PPL\\(base\\)\\s*:\\s*" NUM PM NUM;
static const char RX_KLD_HEADER[] = "=+ KL divergence statistics =+";
static const char RX_KLD[] = "(?m)^Mean\\s+KLD:\\s*" NUM PM NUM;
static const char RX_TOP_P[] = "(?m)^Same top p:\\s*" NUM PM NUM "\\s*%";
static const char RX_GPU_IGNORED[] = "--gpu-layers option will be ignored";

/* A compiled pattern run over one text from a start offset. */
typedef struct scan {
    pcre2_code *code;
    pcre2_match_data *md;
} scan;

static int scan_init(scan *s, const char *pattern)
{
    int code;
    PCRE2_SIZE off;
    s->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
    s->md = s->code ? pcre2_match_data_create_from_pattern(s->code, NULL) : NULL;
    return s->md ? 0 : -1;
}

static void scan_free(scan *s)
{
    pcre2_match_data_free(s->md);
    pcre2_code_free(s->code);
}

/* Matches from *pos in text; on a match moves *pos past it. 1 or 0. */
static int scan_next(scan *s, const char *text, size_t *pos)
{
    size_t len = strlen(text);
    if (*pos > len || pcre2_match(s->code, (PCRE2_SPTR)text, len, *pos, 0, s->md, NULL) <= 0)
        return 0;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
    *pos = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
    return 1;
}

/* Group g of the last match as a number (nan, -nan and inf included). */
static double scan_num(scan *s, const char *text, int g)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
    char buf[64];
    size_t n = ov[2 * g + 1] - ov[2 * g];
    if (n >= sizeof buf)
        return NAN;
    memcpy(buf, text + ov[2 * g], n);
    buf[n] = '\0';
    if (strstr(buf, "nan"))
        return NAN;
    return strtod(buf, NULL);
}

/* Finds pattern (two numeric groups) in out, then in err_text; 1 when found. */
static int find_pair(const char *pattern, const char *out, const char *err_text, double *a, double *b)
{
    scan s;
    if (scan_init(&s, pattern))
        return 0;
    const char *texts[2] = {out, err_text};
    int found = 0;
    for (int i = 0; i < 2 && !found; i++) {
        size_t pos = 0;
        if (texts[i] && scan_next(&s, texts[i], &pos)) {
            *a = scan_num(&s, texts[i], 1);
            if (b)
                *b = scan_num(&s, texts[i], 2);
            found = 1;
        }
    }
    scan_free(&s);
    return found;
}

static int contains(const char *pattern, const char *out, const char *err_text)
{
    scan s;
    if (scan_init(&s, pattern))
        return 0;
    size_t p1 = 0, p2 = 0;
    int found = (out && scan_next(&s, out, &p1)) || (err_text && scan_next(&s, err_text, &p2));
    scan_free(&s);
    return found;
}

/* The running estimates "[i]value," of the stream that has them (stdout
 * normally); index gaps or restarts end the sequence. */
static void parse_chunks(const char *text, check_ppl *res)
{
    scan s;
    if (!text || scan_init(&s, RX_CHUNK))
        return;
    size_t pos = 0, cap = 0;
    while (res->n_chunks < MAX_CHUNKS && scan_next(&s, text, &pos)) {
        double idx = scan_num(&s, text, 1);
        if (idx != (double)(res->n_chunks + 1))
            break;
        if (res->n_chunks == cap) {
            cap = cap ? 2 * cap : 16;
            res->chunks = lvd_xrealloc(res->chunks, cap * sizeof *res->chunks);
        }
        res->chunks[res->n_chunks++] = scan_num(&s, text, 2);
    }
    scan_free(&s);
}

int check_ppl_parse(const char *out, const char *err_text, const char *name, check_ppl *res,
                    lvd_err *err)
{
    memset(res, 0, sizeof *res);
    res->ppl = res->ppl_err = NAN;
    res->ppl_q = res->ppl_q_err = res->ppl_base = res->ppl_base_err = NAN;
    res->ppl_ratio = res->ppl_ratio_err = res->mean_kld = res->mean_kld_err = NAN;
    res->same_top_p = res->same_top_p_err = NAN;

    parse_chunks(out, res);
    if (!res->n_chunks)
        parse_chunks(err_text, res);
    res->has_final = find_pair(RX_FINAL, out, err_text, &res->ppl, &res->ppl_err);
    find_pair(RX_PPL_Q, out, err_text, &res->ppl_q, &res->ppl_q_err);
    find_pair(RX_PPL_BASE, out, err_text, &res->ppl_base, &res->ppl_base_err);
    find_pair(RX_PPL_RATIO, out, err_text, &res->ppl_ratio, &res->ppl_ratio_err);
    int header = contains(RX_KLD_HEADER, out, err_text);
    int kld = find_pair(RX_KLD, out, err_text, &res->mean_kld, &res->mean_kld_err);
    find_pair(RX_TOP_P, out, err_text, &res->same_top_p, &res->same_top_p_err);
    res->gpu_ignored = contains(RX_GPU_IGNORED, out, err_text);

    if (header && !kld) {
        check_ppl_free(res);
        return lvd_errf(err, "%s: KL divergence statistics without a Mean KLD line (truncated output?)",
                        name);
    }
    res->has_kld = kld;
    if (!res->n_chunks && !res->has_final && isnan(res->ppl_q) && !kld) {
        check_ppl_free(res);
        return lvd_errf(err, "%s: no perplexity in the output (no [1]... estimates, no final estimate,"
                             " no KL divergence statistics)", name);
    }
    return 0;
}

void check_ppl_free(check_ppl *res)
{
    if (!res)
        return;
    free(res->chunks);
    res->chunks = NULL;
    res->n_chunks = 0;
}

double check_ppl_value(const check_ppl *res)
{
    if (res->has_final)
        return res->ppl;
    if (!isnan(res->ppl_q))
        return res->ppl_q;
    return res->n_chunks ? res->chunks[res->n_chunks - 1] : NAN;
}
