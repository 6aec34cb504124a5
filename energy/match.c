/* match.c: an arm's device to its energy sources (rules in match.h). Not for
 * reading sources (meter.c). */
#include "energy/match.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int energy_same_pci(const char *a, const char *b)
{
    unsigned da, ba, sa, fa, db, bb, sb, fb;
    if (!a || !b || sscanf(a, "%x:%x:%x.%x", &da, &ba, &sa, &fa) != 4 ||
        sscanf(b, "%x:%x:%x.%x", &db, &bb, &sb, &fb) != 4)
        return 0;
    return da == db && ba == bb && sa == sb && fa == fb;
}

static int has_word(const char *s, const char *w)
{
    return s && strcasestr(s, w) != NULL;
}

/* "nvml", "hwmon" or NULL: the GPU source kind of the target's vendor. */
static const char *vendor_kind(const energy_target *t)
{
    if (has_word(t->name, "nvidia"))
        return "nvml";
    if (has_word(t->name, "amd") || has_word(t->name, "radeon"))
        return "hwmon";
    if (t->backend && !strcasecmp(t->backend, "cuda"))
        return "nvml";
    if (t->backend && (!strcasecmp(t->backend, "rocm") || !strcasecmp(t->backend, "hip")))
        return "hwmon";
    return NULL;
}

static int mem_close(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0)
        return 0;
    return fabs((double)a - (double)b) <= ENERGY_MEM_TOLERANCE * (double)(a > b ? a : b);
}

static int candidate(const energy_source *s, const energy_target *t, const char *kind)
{
    if (strcmp(s->kind, kind))
        return 0;
    if (t->bus_id && *t->bus_id)
        return energy_same_pci(s->id, t->bus_id);
    if (!strcmp(kind, "nvml") && (!t->name || strcasecmp(s->name, t->name)))
        return 0;
    return mem_close(s->mem_mib, t->mem_mib);
}

static void pick_add(energy_pick *p, const energy_set *set, size_t i, const char *label)
{
    if (p->n == ENERGY_MAX_PICK)
        return;
    const energy_source *s = &set->v[i];
    p->idx[p->n++] = i;
    if (!strstr(p->source, s->kind)) {
        size_t l = strlen(p->source);
        snprintf(p->source + l, sizeof p->source - l, "%s%s", l ? "+" : "", s->kind);
    }
    size_t l = strlen(p->device);
    snprintf(p->device + l, sizeof p->device - l, "%s%s%s%s", l ? "+" : "", label ? label : "", label ? "=" : "",
             s->id);
}

static void add_cpu(energy_pick *p, const energy_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].cpu)
            pick_add(p, set, i, NULL);
}

void energy_match(const energy_set *set, const energy_target *t, energy_pick *out)
{
    memset(out, 0, sizeof *out);
    if (!t->selector || !*t->selector) {
        add_cpu(out, set);
        if (!out->n)
            snprintf(out->note, sizeof out->note, "no CPU energy source");
        return;
    }
    const char *kind = vendor_kind(t);
    size_t hit = (size_t)-1, hits = 0;
    for (size_t i = 0; kind && i < set->n; i++) {
        if (candidate(&set->v[i], t, kind)) {
            hit = i;
            hits++;
        }
    }
    if (hits != 1) {
        if (hits > 1)
            snprintf(out->note, sizeof out->note, "%s: %zu sources match equally (no PCI bus id)", t->selector,
                     hits);
        else
            snprintf(out->note, sizeof out->note, "%s: no energy source matches %s (%lld MiB)", t->selector,
                     t->name ? t->name : "?", (long long)t->mem_mib);
        return;
    }
    pick_add(out, set, hit, t->selector);
    add_cpu(out, set);
}
