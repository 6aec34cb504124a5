/* meter.c: the set of sources as cumulative joules (energy.h): discovery in
 * order, a counter's wraps unfolded, and the sampler thread that integrates
 * the power of sampled sources. Not for the vendors' files and calls (nvml.c,
 * sysfs.c) or for windows (watch.c). */
#include "energy/energy.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct sampler {
    pthread_t thread;
    pthread_mutex_t mu;
    int stop;
    int period_ms;
    energy_set *set;
} sampler;

void energy_add_source(energy_set *set, const energy_source *src)
{
    set->v = lvd_xrealloc(set->v, (set->n + 1) * sizeof *set->v);
    set->v[set->n++] = *src;
}

void energy_note(energy_set *set, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lvd_sb_vaddf(&set->notes, fmt, ap);
    va_end(ap);
    lvd_sb_addc(&set->notes, '\n');
}

static int raw_of(energy_set *set, const energy_source *src, uint64_t *raw)
{
    return !strcmp(src->kind, "nvml") ? energy_nvml_raw(set, src, raw) : energy_sysfs_raw(src, raw);
}

/* Joules per raw unit: NVML mJ, sysfs uJ. */
static double joules_per_unit(const energy_source *src)
{
    return !strcmp(src->kind, "nvml") ? 1e-3 : 1e-6;
}

/* One power sample of a sampled source folded into its total (trapezoid). */
static void sample_power(energy_set *set, energy_source *src, int64_t now)
{
    uint64_t raw;
    if (raw_of(set, src, &raw))
        return;
    if (src->have_last)
        src->total_j += ((double)raw + (double)src->last_raw) / 2 * joules_per_unit(src) *
                        (double)(now - src->last_ms) / 1000.0;
    src->last_raw = raw;
    src->last_ms = now;
    src->have_last = 1;
}

static void *sampler_main(void *arg)
{
    sampler *sp = arg;
    for (;;) {
        pthread_mutex_lock(&sp->mu);
        int stop = sp->stop;
        for (size_t i = 0; !stop && i < sp->set->n; i++)
            if (!sp->set->v[i].counter)
                sample_power(sp->set, &sp->set->v[i], lvd_mono_ms());
        pthread_mutex_unlock(&sp->mu);
        if (stop)
            return NULL;
        struct timespec ts = {.tv_sec = sp->period_ms / 1000, .tv_nsec = (long)(sp->period_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

static void sampler_start(energy_set *set)
{
    int any = 0;
    for (size_t i = 0; i < set->n; i++)
        any |= !set->v[i].counter;
    if (!any)
        return;
    sampler *sp = lvd_xcalloc(1, sizeof *sp);
    sp->set = set;
    const char *p = getenv("LVD_ENERGY_SAMPLE_MS");
    int64_t ms = 100;
    if (p && (lvd_parse_i64(p, &ms) || ms < 1 || ms > 10000))
        ms = 100;
    sp->period_ms = (int)ms;
    for (size_t i = 0; i < set->n; i++) /* a first sample now: readable at once */
        if (!set->v[i].counter)
            sample_power(set, &set->v[i], lvd_mono_ms());
    pthread_mutex_init(&sp->mu, NULL);
    if (pthread_create(&sp->thread, NULL, sampler_main, sp)) {
        pthread_mutex_destroy(&sp->mu);
        free(sp);
        energy_note(set, "energy: cannot start the power sampler: sampled sources not measured");
        return;
    }
    set->sampler = sp;
}

void energy_open(energy_set *set)
{
    memset(set, 0, sizeof *set);
    energy_nvml_open(set);
    energy_sysfs_open(set);
    sampler_start(set);
}

void energy_close(energy_set *set)
{
    sampler *sp = set->sampler;
    if (sp) {
        pthread_mutex_lock(&sp->mu);
        sp->stop = 1;
        pthread_mutex_unlock(&sp->mu);
        pthread_join(sp->thread, NULL);
        pthread_mutex_destroy(&sp->mu);
        free(sp);
    }
    energy_nvml_close(set);
    free(set->v);
    lvd_sb_free(&set->notes);
    memset(set, 0, sizeof *set);
}

/* A counter's new raw value folded into its total; a value below the last
 * one is a wrap at the source's range (2^64 when it has none). */
static void fold_counter(energy_source *src, uint64_t raw)
{
    if (src->have_last) {
        uint64_t d = raw >= src->last_raw ? raw - src->last_raw
                     : src->range ? src->range - src->last_raw + raw
                                  : raw - src->last_raw; /* unsigned: wraps at 2^64 */
        src->total_j += (double)d * joules_per_unit(src);
    }
    src->last_raw = raw;
    src->have_last = 1;
}

int energy_read(energy_set *set, size_t i, double *joules)
{
    if (i >= set->n)
        return -1;
    energy_source *src = &set->v[i];
    if (!src->counter) {
        sampler *sp = set->sampler;
        if (!sp)
            return -1;
        pthread_mutex_lock(&sp->mu);
        int ok = src->have_last;
        *joules = src->total_j;
        pthread_mutex_unlock(&sp->mu);
        return ok ? 0 : -1;
    }
    uint64_t raw;
    if (raw_of(set, src, &raw))
        return -1;
    fold_counter(src, raw);
    *joules = src->total_j;
    return 0;
}
