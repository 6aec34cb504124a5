/* watch.c: the windows of llama-bench's repetitions from its --progress
 * lines, and the idle baseline (rules in watch.h). Not for reading sources
 * (meter.c). */
#include "energy/watch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t energy_min_window_ms(void)
{
    const char *p = getenv("LVD_ENERGY_MIN_WINDOW_MS");
    int64_t v;
    if (p && !lvd_parse_i64(p, &v) && v >= 0)
        return v;
    return ENERGY_MIN_WINDOW_MS_DEFAULT;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

void energy_idle(energy_set *set, int64_t ms, double *idle_w)
{
    double *j0 = lvd_xcalloc(set->n ? set->n : 1, sizeof *j0);
    int *ok = lvd_xcalloc(set->n ? set->n : 1, sizeof *ok);
    for (size_t i = 0; i < set->n; i++)
        ok[i] = energy_read(set, i, &j0[i]) == 0;
    int64_t t0 = lvd_mono_ms();
    sleep_ms(ms > 0 ? ms : 1);
    int64_t dt = lvd_mono_ms() - t0;
    for (size_t i = 0; i < set->n; i++) {
        double j1;
        idle_w[i] = NAN;
        if (ok[i] && energy_read(set, i, &j1) == 0 && j1 > j0[i] && dt > 0)
            idle_w[i] = (j1 - j0[i]) / ((double)dt / 1000.0);
    }
    free(j0);
    free(ok);
}

int energy_progress_line(const char *line, size_t *bench, int *run)
{
    unsigned long j, n;
    int used = 0;
    if (sscanf(line, "llama-bench: benchmark %lu/%lu: %n", &j, &n, &used) != 2 || !used || j < 1)
        return 0;
    const char *rest = line + used;
    *bench = (size_t)(j - 1);
    if (!strncmp(rest, "starting", 8)) {
        *run = 0;
        return 1;
    }
    if (!strncmp(rest, "warmup", 6)) {
        *run = -1;
        return 1;
    }
    const char *r = strstr(rest, " run ");
    int k;
    if (!r || sscanf(r, " run %d/", &k) != 1 || k < 1)
        return 0;
    *run = k;
    return 1;
}

void energy_watch_init(energy_watch *w, energy_set *set, const energy_pick *pick, const double *idle_w)
{
    memset(w, 0, sizeof *w);
    w->set = set;
    w->pick = pick;
    w->idle_w = idle_w;
    w->min_window_ms = energy_min_window_ms();
    w->cur = (size_t)-1;
}

/* Reads the pick's sources into j[]; 0 when all were read. */
static int read_all(energy_watch *w, double *j)
{
    int rc = 0;
    for (size_t i = 0; i < w->pick->n; i++)
        rc |= energy_read(w->set, w->pick->idx[i], &j[i]);
    return rc;
}

static void close_cur(energy_watch *w)
{
    if (w->cur == (size_t)-1)
        return;
    energy_window *x = &w->w[w->cur];
    x->t1 = lvd_mono_ms();
    x->failed |= read_all(w, x->j1) != 0;
    x->closed = 1;
    w->cur = (size_t)-1;
}

static void on_line(energy_watch *w, const char *line)
{
    size_t j;
    int run;
    if (!energy_progress_line(line, &j, &run))
        return;
    if (run == 0) {
        close_cur(w);
        return;
    }
    if (run != 1 || j > 4096 || j == w->cur)
        return; /* a pp+tg test prints a prompt and a generation run 1: the first opens */
    close_cur(w);
    if (j >= w->n) {
        w->w = lvd_xrealloc(w->w, (j + 1) * sizeof *w->w);
        memset(w->w + w->n, 0, (j + 1 - w->n) * sizeof *w->w);
        w->n = j + 1;
    }
    energy_window *x = &w->w[j];
    memset(x, 0, sizeof *x);
    x->open = 1;
    x->t0 = lvd_mono_ms();
    x->failed = read_all(w, x->j0) != 0;
    w->cur = j;
}

void energy_watch_feed(const char *buf, size_t n, void *ctx)
{
    energy_watch *w = ctx;
    if (!w->pick || !w->pick->n)
        return;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '\n') {
            if (w->partial.len < 4096)
                lvd_sb_addc(&w->partial, buf[i]);
            continue;
        }
        on_line(w, lvd_sb_str(&w->partial));
        lvd_sb_reset(&w->partial);
    }
}

void energy_watch_end(energy_watch *w)
{
    if (w->pick && w->pick->n)
        close_cur(w);
}

/* The idle watts of the pick: the sum of its sources' known figures; NAN when
 * none is known. */
static double pick_idle(const energy_watch *w)
{
    double sum = 0;
    int any = 0;
    for (size_t i = 0; w->idle_w && i < w->pick->n; i++) {
        double v = w->idle_w[w->pick->idx[i]];
        if (isfinite(v)) {
            sum += v;
            any = 1;
        }
    }
    return any ? sum : NAN;
}

void energy_watch_result(const energy_watch *w, size_t j, lvd_energy *out)
{
    memset(out, 0, sizeof *out);
    out->idle_watts = NAN;
    if (!w->pick || !w->pick->n) {
        snprintf(out->note, sizeof out->note, "%s", w->pick ? w->pick->note : "");
        return;
    }
    snprintf(out->source, sizeof out->source, "%s", w->pick->source);
    snprintf(out->device, sizeof out->device, "%s", w->pick->device);
    const energy_window *x = j < w->n ? &w->w[j] : NULL;
    if (!x || !x->open || !x->closed || x->failed) {
        snprintf(out->note, sizeof out->note, "%s", x && x->failed ? "a source could not be read"
                                                                     : "no --progress window for this test");
        return;
    }
    int64_t ms = x->t1 - x->t0;
    double joules = 0;
    for (size_t i = 0; i < w->pick->n; i++) {
        double d = x->j1[i] - x->j0[i];
        if (!(d > 0)) {
            char *msg = lvd_xasprintf("%s did not advance in %lld ms (stalled or slow counter)",
                                      w->set->v[w->pick->idx[i]].id, (long long)ms);
            snprintf(out->note, sizeof out->note, "%s", msg);
            free(msg);
            return;
        }
        joules += d;
    }
    if (ms < w->min_window_ms) {
        snprintf(out->note, sizeof out->note, "window %lld ms is shorter than %lld ms (more -r measures it)",
                 (long long)ms, (long long)w->min_window_ms);
        return;
    }
    out->measured = 1;
    out->joules = joules;
    out->window_s = (double)ms / 1000.0;
    out->idle_watts = pick_idle(w);
}

void energy_watch_free(energy_watch *w)
{
    lvd_sb_free(&w->partial);
    free(w->w);
    memset(w, 0, sizeof *w);
}
