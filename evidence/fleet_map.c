/* fleet_map.c: the backend map from the hosts' arms (evidence/fleet.h), pure:
 * per host each backend against the best other backend on a card, then the
 * median across hosts with its interval. Not for reading the store
 * (fleet.c) or for printing (fleet_render.c). */
#include "evidence/fleet.h"

#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ev_fleet_add_arm(ev_fleet_host *h, const char *artifact, const char *card, const char *backend,
                      const char *test, int tg, const double *ts, size_t n)
{
    h->arms = lvd_xrealloc(h->arms, (h->n_arms + 1) * sizeof *h->arms);
    ev_fleet_arm *a = &h->arms[h->n_arms++];
    memset(a, 0, sizeof *a);
    snprintf(a->artifact, sizeof a->artifact, "%s", artifact);
    snprintf(a->card, sizeof a->card, "%s", card);
    snprintf(a->backend, sizeof a->backend, "%s", backend);
    snprintf(a->test, sizeof a->test, "%s", test);
    a->tg = tg;
    a->ts = lvd_xmalloc((n ? n : 1) * sizeof *a->ts);
    memcpy(a->ts, ts, n * sizeof *a->ts);
    a->n = n;
}

/* Whether a and b are one comparison group: same model, card and test. */
static int same_group(const ev_fleet_arm *a, const ev_fleet_arm *b)
{
    return !strcmp(a->artifact, b->artifact) && !strcmp(a->card, b->card) && !strcmp(a->test, b->test);
}

/* The best arm (highest median) of the group of g whose backend is (want 1)
 * or is not (want 0) backend; NULL when none. */
static const ev_fleet_arm *best_of(const ev_fleet_host *h, const ev_fleet_arm *g, const char *backend, int want)
{
    const ev_fleet_arm *best = NULL;
    double best_m = 0.0;
    for (size_t i = 0; i < h->n_arms; i++) {
        const ev_fleet_arm *a = &h->arms[i];
        if (!a->n || !same_group(a, g) || (!strcmp(a->backend, backend)) != want)
            continue;
        double m = stats_median(a->ts, a->n);
        if (!best || m > best_m) {
            best = a;
            best_m = m;
        }
    }
    return best;
}

/* Whether h already has a ratio for x's group and backend. */
static int have_ratio(const ev_fleet_host *h, const ev_fleet_arm *x)
{
    for (size_t i = 0; i < h->n_ratios; i++) {
        const ev_fleet_ratio *r = &h->ratios[i];
        if (!strcmp(r->artifact, x->artifact) && !strcmp(r->card, x->card) && !strcmp(r->test, x->test) &&
            !strcmp(r->backend, x->backend))
            return 1;
    }
    return 0;
}

int ev_fleet_host_ratios(ev_fleet_host *h, lvd_err *err)
{
    stats_rule rule;
    stats_rule_default(&rule);
    for (size_t i = 0; i < h->n_arms; i++) {
        const ev_fleet_arm *x = &h->arms[i];
        if (!x->n || have_ratio(h, x))
            continue;
        const ev_fleet_arm *mine = best_of(h, x, x->backend, 1), *other = best_of(h, x, x->backend, 0);
        if (!other)
            continue; /* one backend on this card: nothing to compare */
        stats_comparison c;
        if (stats_compare(mine->ts, mine->n, other->ts, other->n, &rule, &c) != 0)
            return lvd_errf(err, "host %s: %s on %s (%s): %s", h->host, x->test, x->backend, x->card, c.why);
        h->ratios = lvd_xrealloc(h->ratios, (h->n_ratios + 1) * sizeof *h->ratios);
        ev_fleet_ratio *r = &h->ratios[h->n_ratios++];
        memset(r, 0, sizeof *r);
        snprintf(r->artifact, sizeof r->artifact, "%s", x->artifact);
        snprintf(r->card, sizeof r->card, "%s", x->card);
        snprintf(r->backend, sizeof r->backend, "%s", x->backend);
        snprintf(r->versus, sizeof r->versus, "%s", other->backend);
        snprintf(r->test, sizeof r->test, "%s", x->test);
        r->tg = x->tg;
        r->ratio = c.ratio;
        r->ci_lo = c.ci_lo;
        r->ci_hi = c.ci_hi;
    }
    return 0;
}

void ev_fleet_sorted_add(char ***v, size_t *n, const char *s)
{
    size_t at = 0;
    while (at < *n && strcmp((*v)[at], s) < 0)
        at++;
    if (at < *n && !strcmp((*v)[at], s))
        return;
    *v = lvd_xrealloc(*v, (*n + 2) * sizeof **v);
    memmove(&(*v)[at + 1], &(*v)[at], (*n - at) * sizeof **v);
    (*v)[at] = lvd_xstrdup(s);
    (*v)[++*n] = NULL;
}

/* h's figure for (card, backend, tg): the median of its ratios there; NAN none. */
static double host_figure(const ev_fleet_host *h, const char *card, const char *backend, int tg)
{
    double *v = lvd_xmalloc((h->n_ratios + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < h->n_ratios; i++) {
        const ev_fleet_ratio *r = &h->ratios[i];
        if (r->tg == tg && !strcmp(r->card, card) && !strcmp(r->backend, backend) && isfinite(r->ratio))
            v[n++] = r->ratio;
    }
    double m = n ? stats_median(v, n) : NAN;
    free(v);
    return m;
}

/* The cell of (card, backend, tg) across f's hosts; 0 when no host has it. */
static int make_cell(const ev_fleet *f, const char *card, const char *backend, int tg, ev_fleet_cell *c)
{
    memset(c, 0, sizeof *c);
    double *v = lvd_xmalloc((f->n_hosts + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < f->n_hosts; i++) {
        double x = host_figure(&f->hosts[i], card, backend, tg);
        if (isfinite(x)) {
            v[n++] = x;
            ev_fleet_sorted_add(&c->hosts, &c->n_hosts, f->hosts[i].host);
        }
    }
    if (n) {
        snprintf(c->card, sizeof c->card, "%s", card);
        snprintf(c->backend, sizeof c->backend, "%s", backend);
        c->tg = tg;
        stats_median_ci_exact(v, n, 0.95, &c->ci);
    }
    free(v);
    return n > 0;
}

void ev_fleet_map(ev_fleet *f)
{
    for (size_t i = 0; i < f->n_hosts; i++)
        for (size_t k = 0; k < f->hosts[i].n_ratios; k++) {
            ev_fleet_sorted_add(&f->cards, &f->n_cards, f->hosts[i].ratios[k].card);
            ev_fleet_sorted_add(&f->backends, &f->n_backends, f->hosts[i].ratios[k].backend);
        }
    for (int tg = 1; tg >= 0; tg--)
        for (size_t c = 0; c < f->n_cards; c++)
            for (size_t b = 0; b < f->n_backends; b++) {
                ev_fleet_cell cell;
                if (!make_cell(f, f->cards[c], f->backends[b], tg, &cell))
                    continue;
                f->cells = lvd_xrealloc(f->cells, (f->n_cells + 1) * sizeof *f->cells);
                f->cells[f->n_cells++] = cell;
            }
}

const ev_fleet_cell *ev_fleet_cell_of(const ev_fleet *f, const char *card, const char *backend, int tg)
{
    for (size_t i = 0; i < f->n_cells; i++)
        if (f->cells[i].tg == tg && !strcmp(f->cells[i].card, card) && !strcmp(f->cells[i].backend, backend))
            return &f->cells[i];
    return NULL;
}
