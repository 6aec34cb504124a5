/* test_chart.c: the history charts stay readable from 14 to 365 nights. A
 * synthetic year of nights (16 arms of one model as the year store has them:
 * 6 CUDA near 1000 t/s, 6 Vulkan near 700, 4 CPU from 30 to 50, one run a
 * night each, tg128 and pp512) goes through ev_history_build and the tg and
 * pp history charts at 14, 90 and 365 nights; each chart must stay under
 * 60 KB, give every arm its own colour and dash, keep the CPU arms apart,
 * show nights up to four weeks and weeks beyond, and (tests/support/svg-text-boxes.py:
 * rendered by rsvg-convert) draw no text over another. Also the weekly rule
 * on known medians, and the pin table's folding of repeated decisions (the
 * page at 365 nights stays short). */
#include "tests/support/testutil.h"

#include "common/proc.h"
#include "common/util.h"
#include "evidence/history.h"
#include "evidence/model.h"
#include "evidence/render.h"
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARMS 16
#define YEAR 365
#define SAMPLES 5

static const char *backend_of(size_t a)
{
    return a < 6 ? "cuda" : a < 12 ? "vulkan" : "cpu";
}

static double speed_of(size_t a)
{
    static const double cpu[] = {30, 38, 44, 50};
    return a < 6 ? 990 + 8.0 * (double)a : a < 12 ? 700 + 5.0 * (double)(a - 6) : cpu[a - 12];
}

/* The model's 16 arms, labelled as the page labels them. */
static void year_model(ev_model *m)
{
    memset(m, 0, sizeof *m);
    m->name = lvd_xstrdup("kv-llama.gguf");
    snprintf(m->tg_test, sizeof m->tg_test, "tg128");
    snprintf(m->pp_test, sizeof m->pp_test, "pp512");
    m->n_arms = ARMS;
    m->arms = lvd_xcalloc(ARMS, sizeof *m->arms);
    for (size_t a = 0; a < ARMS; a++) {
        ev_arm *x = &m->arms[a];
        x->engine_id = (int64_t)(a / 4 + 1);
        x->arm_key = lvd_xasprintf("arm-%zu", a);
        x->backend = lvd_xstrdup(backend_of(a));
        x->label = lvd_xasprintf("%s b97%02zu-%s · %s, ngl 99, fa %zu, ub %d, ctk f16, ctv f16, t 16", backend_of(a),
                                 a, backend_of(a), a < 6 ? "CUDA0" : a < 12 ? "Vulkan0" : "CPU", a % 2,
                                 a % 4 < 2 ? 512 : 256);
        snprintf(x->tg.test, sizeof x->tg.test, "tg128");
        snprintf(x->pp.test, sizeof x->pp.test, "pp512");
    }
}

/* One ok run per arm and night, SAMPLES tg128 samples within 1 % of the
 * arm's speed and SAMPLES pp512 at 8 times it, drifting by a step every 90
 * nights. */
static lvd_run *year_runs(size_t *n)
{
    stats_rng r;
    stats_rng_seed(&r, 15);
    lvd_run *runs = lvd_xcalloc(ARMS * YEAR, sizeof *runs);
    const int64_t t0 = 1764554400; /* 2025-12-01 02:00 UTC */
    for (size_t night = 0; night < YEAR; night++)
        for (size_t a = 0; a < ARMS; a++) {
            lvd_run *x = &runs[night * ARMS + a];
            x->engine_id = (int64_t)(a / 4 + 1);
            x->arm_key = lvd_xasprintf("arm-%zu", a);
            x->session = lvd_xasprintf("night-%03zu", night);
            x->started_at = t0 + (int64_t)night * 86400 + (int64_t)a;
            snprintf(x->status, sizeof x->status, "ok");
            x->n_results = 2;
            x->results = lvd_xcalloc(2, sizeof *x->results);
            double mean = speed_of(a) * (1 + 0.01 * (double)((night / 90) % 2));
            for (size_t t = 0; t < 2; t++) {
                lvd_result *res = &x->results[t];
                snprintf(res->test, sizeof res->test, "%s", t ? "pp512" : "tg128");
                res->n_gen = t ? 0 : 128;
                res->n_prompt = t ? 512 : 0;
                res->n = SAMPLES;
                res->ts = lvd_xcalloc(SAMPLES, sizeof *res->ts);
                res->warmup = lvd_xcalloc(SAMPLES, 1);
                for (size_t k = 0; k < SAMPLES; k++)
                    res->ts[k] = mean * (t ? 8 : 1) * (1 + 0.004 * stats_rng_normal(&r));
            }
        }
    *n = ARMS * YEAR;
    return runs;
}

static void runs_free(lvd_run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(runs[i].arm_key);
        free(runs[i].session);
        for (size_t t = 0; t < runs[i].n_results; t++) {
            free(runs[i].results[t].ts);
            free(runs[i].results[t].warmup);
        }
        free(runs[i].results);
    }
    free(runs);
}

/* The value of attribute name in the element starting at el ("" when absent). */
static void attr(const char *el, const char *name, char *out, size_t len)
{
    const char *end = strchr(el, '>');
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *p = strstr(el, key);
    out[0] = '\0';
    if (p && p < end)
        snprintf(out, len, "%.*s", (int)strcspn(p + strlen(key), "\""), p + strlen(key));
}

/* Every line of the chart: distinct (stroke, dash) pairs; the points of
 * each (pts[i], the mean y in ys[i]); returns the number of lines. */
static size_t lines_of(const char *svg, size_t *pts, double *ys)
{
    char style[ARMS * 2][96];
    size_t n = 0;
    for (const char *p = strstr(svg, "<polyline "); p; p = strstr(p + 1, "<polyline ")) {
        assert_true(n < ARMS * 2);
        char stroke[32], dash[32], points[65536];
        attr(p, "stroke", stroke, sizeof stroke);
        attr(p, "stroke-dasharray", dash, sizeof dash);
        snprintf(style[n], sizeof style[n], "%s|%s", stroke, dash);
        for (size_t k = 0; k < n; k++)
            if (!strcmp(style[k], style[n]))
                fail_msg("two lines share stroke %s and dash '%s'", stroke, dash);
        attr(p, "points", points, sizeof points);
        double sum = 0;
        pts[n] = 0;
        for (char *q = points; *q;) {
            char *end;
            strtod(q, &end);
            sum += strtod(end + 1, &end);
            pts[n]++;
            q = end + strspn(end, " ");
        }
        ys[n] = sum / (double)pts[n];
        n++;
    }
    return n;
}

static void check_text_boxes(const char *const *files, size_t n)
{
    char *script = tu_source("tests/support/svg-text-boxes.py");
    const char *argv[12] = {"/usr/bin/env", "python3", script};
    assert_true(n + 4 <= LVD_ARRAY_LEN(argv));
    for (size_t i = 0; i < n; i++)
        argv[3 + i] = files[i];
    proc_spec spec = {.argv = argv, .timeout_ms = 120000};
    proc_result res;
    lvd_err err = {0};
    assert_int_equal(proc_run(&spec, &res, &err), 0);
    if (!proc_ok(&res))
        fail_msg("svg-text-boxes.py: %s%s", lvd_sb_str(&res.out), lvd_sb_str(&res.err));
    proc_result_free(&res);
    free(script);
}

/* The tg (tg 1) or pp history of m at `nights` nights: under 60 KB, a line
 * per arm with its own colour and dash, nights then weeks, the CPU arms
 * apart; written to path. */
static void check_chart(const ev_model *m, int tg, size_t nights, const char *path)
{
    lvd_sb svg = {0};
    ev_svg_history_of(m, tg, &svg);
    /* its size does not grow with nights */
    assert_true(svg.len < 60 * 1024);
    size_t pts[ARMS * 2];
    double ys[ARMS * 2];
    assert_int_equal(lines_of(lvd_sb_str(&svg), pts, ys), ARMS);
    /* every night up to four weeks, then a point per ISO week: 90 nights to
     * a Monday are 14 weeks, 365 from a Monday 53 (the last one of one night) */
    for (size_t a = 0; a < ARMS; a++)
        assert_int_equal(pts[a], nights == 14 ? 14 : nights == 90 ? 14 : 53);
    /* the CPU arms (the legend's last four) are at least 10 px apart */
    for (size_t a = ARMS - 4; a + 1 < ARMS; a++)
        assert_true(ys[a] - ys[a + 1] >= 10);
    tu_write(path, svg.buf, svg.len);
    lvd_sb_free(&svg);
}

static void test_year_of_history(void **state)
{
    (void)state;
    size_t nr;
    lvd_run *runs = year_runs(&nr);
    char *dir = tu_tmpdir();
    static const size_t nights[] = {14, 90, YEAR};
    const char *files[6];
    char *paths[6];
    for (size_t c = 0; c < 3; c++) {
        ev_model m;
        year_model(&m);
        ev_history_build(&m, runs, nr, nights[c]);
        assert_int_equal(m.n_dates, nights[c]);
        for (int tg = 0; tg < 2; tg++) {
            paths[2 * c + (size_t)tg] = lvd_xasprintf("%s/%s-history-%zu.svg", dir, tg ? "tg" : "pp", nights[c]);
            files[2 * c + (size_t)tg] = paths[2 * c + (size_t)tg];
            check_chart(&m, tg, nights[c], paths[2 * c + (size_t)tg]);
        }
        ev_model_free(&m);
    }
    check_text_boxes(files, 6);
    for (size_t c = 0; c < 6; c++)
        free(paths[c]);
    tu_tmpdir_free(dir);
    runs_free(runs, nr);
}

/* The weekly rule on known medians: two ISO weeks (Mon 2026-11-16 to Sun
 * 11-22, Mon 11-23 to 11-24). */
static void test_weekly_points(void **state)
{
    (void)state;
    static const struct {
        const char *date;
        double v;
    } nights[] = {{"2026-11-17", 10}, {"2026-11-18", 30}, {"2026-11-22", 20}, {"2026-11-23", 5}, {"2026-11-24", 7}};
    ev_arm a = {.n_hist = 5};
    a.hist = lvd_xcalloc(5, sizeof *a.hist);
    for (size_t k = 0; k < 5; k++) {
        snprintf(a.hist[k].date, sizeof a.hist[k].date, "%s", nights[k].date);
        a.hist[k].median = nights[k].v;
    }
    ev_hist_pt *p;
    size_t n;
    ev_hist_points(a.hist, a.n_hist, 1, &p, &n);
    assert_int_equal(n, 2);
    assert_string_equal(p[0].date, "2026-11-16");
    assert_true(p[0].median == 20 && p[0].lo == 10 && p[0].hi == 30);
    assert_int_equal(p[0].nights, 3);
    assert_true(fabs(p[0].day - (double)(ev_day_of("2026-11-17") + ev_day_of("2026-11-22")) / 2) < 1e-9);
    assert_string_equal(p[1].date, "2026-11-23");
    assert_true(p[1].median == 6 && p[1].lo == 5 && p[1].hi == 7);
    free(p);
    ev_hist_points(a.hist, a.n_hist, 0, &p, &n);
    assert_int_equal(n, 5);
    assert_true(p[1].median == 30 && p[1].lo == 30 && p[1].hi == 30);
    free(p);
    free(a.hist);
    /* the calendar both ways, across a leap day */
    char d[11];
    ev_day_date(ev_day_of("2028-02-28") + 1, d);
    assert_string_equal(d, "2028-02-29");
    assert_int_equal(ev_day_of("1970-01-01"), 0);
    /* more than 28 days from first to last night: weekly */
    ev_model m = {0};
    char *dates[] = {"2026-11-01", "2026-11-29", NULL};
    m.dates = dates;
    m.n_dates = 2;
    assert_false(ev_hist_weekly(&m));
    dates[1] = "2026-11-30";
    assert_true(ev_hist_weekly(&m));
}

/* Repeated identical decisions fold into one row with their date range;
 * a different decision between them splits the run. */
static void test_pin_folding(void **state)
{
    (void)state;
    ev_pin_entry hist[] = {
        {.date = "2026-11-30 03:02 UTC", .pinned = "b100", .candidate = "b101", .decision = "keep",
         .rule = "regression: tg128 on cuda -1.1 % [CI -2.2 %, +0.6 %] (model m, CUDA0)"},
        {.date = "2026-11-29 03:02 UTC", .pinned = "b100", .candidate = "b101", .decision = "keep",
         .rule = "no significant win (best: pp512 on vulkan +1.1 %, p 0.0156)"},
        {.date = "2026-11-28 03:02 UTC", .pinned = "b100", .candidate = "b101", .decision = "keep",
         .rule = "no significant win (best: tg128 on cuda +1.0 %, p 0.0046)"},
        {.date = "2026-11-27 03:02 UTC", .pinned = "b99", .candidate = "b100", .decision = "promote",
         .rule = "promote b100: no regression in 4 comparisons", .applied = 1},
        {.date = "2026-11-26 03:02 UTC", .pinned = "b99", .candidate = "b100", .decision = "keep",
         .rule = "first night: needs a second consecutive night"},
        {.date = "2026-11-25 03:02 UTC", .pinned = "b99", .candidate = "b100", .decision = "keep",
         .rule = "first night: needs a second consecutive night"},
    };
    ev_pin pin = {.hist = hist, .n_hist = LVD_ARRAY_LEN(hist)};
    lvd_sb sb = {0};
    ev_pin_render_recent(&sb, &pin);
    const char *want =
        "Recent decisions, newest first (a run of the same decision is one row):\n\n"
        "| decided | pinned | candidate | decision | rule |\n|---|---|---|---|---|\n"
        "| 2026-11-28 to 2026-11-30 (3 decisions) | b100 | b101 | keep | rules 1 regression, 2 no significant "
        "win; newest (2026-11-30): regression: tg128 on cuda -1.1 % [CI -2.2 %, +0.6 %] (model m, CUDA0) |\n"
        "| 2026-11-27 03:02 UTC | b99 | b100 | promote (applied) | promote b100: no regression in 4 comparisons |\n"
        "| 2026-11-25 to 2026-11-26 (2 decisions) | b99 | b100 | keep | rules 2 first night; newest (2026-11-26): "
        "first night: needs a second consecutive night |\n";
    assert_string_equal(lvd_sb_str(&sb), want);
    lvd_sb_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_year_of_history),
        cmocka_unit_test(test_weekly_points),
        cmocka_unit_test(test_pin_folding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
