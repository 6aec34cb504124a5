/* fleet.h: the fleet view of a store several hosts write: per
 * host its GPUs and the winning engine and backend per model, and the
 * backend map across hosts. Read only; the same store gives the same view.
 *
 * Per host (ev_fleet_load): the arms of each model in their newest session
 * among the host's runs since the day before its newest run's UTC date (a
 * night past midnight stays whole; select/armset.h, kept samples): the
 * fleet's view is each host's latest night, and a year of history costs
 * nothing; an arm is on a card when the device it
 * ran on (engine_check_device) is one of its engine's latest probe's devices
 * (card = the device's name as listed, backend = the device's backend; a
 * software device such as llvmpipe is no card) and its newest session has an
 * ok run. The GPUs are those cards. The winner per model is the host's newest verdict
 * (any objective): its engine, backend and device, or its rule when it
 * recorded no winner.
 *
 * The backend map (ev_fleet_host_ratios, ev_fleet_map): rows = cards, columns
 * = backends, one map for tg tests and one for pp tests. On one host, per
 * model, card and test, the best arm of each backend (highest median) is
 * compared with the best arm of the other backends on that card
 * (stats_compare, default rule: ratio of medians with its bootstrap CI): a
 * ratio above 1 says the backend beats every other backend on the card by
 * that much, below 1 how far it trails the best one. A host's figure for a
 * cell is the median of its ratios there (over models and tests). The cell
 * is the median of the hosts' figures with the distribution-free interval of
 * a median across hosts (stats/median_ci.h, 95 %; n hosts said per cell; one
 * host: n = 1 and no interval; two to five hosts: the range, with its
 * coverage below 95 % said). */
#ifndef LVD_EV_FLEET_H
#define LVD_EV_FLEET_H

#include "common/types.h"
#include "common/util.h"
#include "stats/median_ci.h"

#include <stddef.h>

struct store;
struct cJSON;

/* One arm's kept samples of one test on one card (the map's input). */
typedef struct ev_fleet_arm {
    char artifact[LVD_SHA256_HEX_LEN + 1];
    char card[256];
    char backend[16];
    char test[48];
    int tg;                 /* 1 tg test, 0 pp test */
    double *ts;
    size_t n;
} ev_fleet_arm;

/* One backend against the best other backend on one card, on one host. */
typedef struct ev_fleet_ratio {
    char artifact[LVD_SHA256_HEX_LEN + 1];
    char card[256];
    char backend[16], versus[16];
    char test[48];
    int tg;
    double ratio, ci_lo, ci_hi;
} ev_fleet_ratio;

/* The winner of one model on one host (its newest verdict). */
typedef struct ev_fleet_winner {
    char artifact[LVD_SHA256_HEX_LEN + 1];
    char *model;            /* the model file's name, else the sha256's first 12 digits */
    char *objective;
    char *engine;           /* NULL: no winner (rule says why) or the engine is gone */
    char backend[16];
    char device[64];
    char *card;             /* the device's name; NULL unknown */
    char *rule;
} ev_fleet_winner;

typedef struct ev_fleet_host {
    char *host;
    char **gpus;            /* distinct cards, sorted; NULL-terminated */
    size_t n_gpus;
    ev_fleet_winner *winners;
    size_t n_winners;
    ev_fleet_arm *arms;
    size_t n_arms;
    ev_fleet_ratio *ratios;
    size_t n_ratios;
} ev_fleet_host;

/* One cell of the backend map. */
typedef struct ev_fleet_cell {
    char card[256];
    char backend[16];
    int tg;
    stats_median_ci ci;     /* across hosts; ci.n hosts */
    char **hosts;           /* the hosts behind it, sorted; NULL-terminated */
    size_t n_hosts;
} ev_fleet_cell;

typedef struct ev_fleet {
    ev_fleet_host *hosts;   /* sorted by name */
    size_t n_hosts;
    char **cards, **backends; /* the map's rows and columns, sorted; NULL-terminated */
    size_t n_cards, n_backends;
    ev_fleet_cell *cells;   /* by tg (tg first), card, backend */
    size_t n_cells;
} ev_fleet;

/* Appends an arm (samples copied) to h. */
void ev_fleet_add_arm(ev_fleet_host *h, const char *artifact, const char *card, const char *backend,
                      const char *test, int tg, const double *ts, size_t n);
/* h's ratios from its arms (see the header comment). Pure. 0, or -1 (err)
 * when a sample is not a finite positive throughput. */
int ev_fleet_host_ratios(ev_fleet_host *h, lvd_err *err);
/* The map's rows, columns and cells from every host's ratios. Pure. */
void ev_fleet_map(ev_fleet *f);
/* Adds a copy of s to the sorted, distinct, NULL-terminated vector *v of *n. */
void ev_fleet_sorted_add(char ***v, size_t *n, const char *s);
/* The cell of (card, backend, tg), or NULL. */
const ev_fleet_cell *ev_fleet_cell_of(const ev_fleet *f, const char *card, const char *backend, int tg);

/* Reads every host of the store (store/fleetdb.h) into f and builds the map.
 * 0, or -1 with err. */
int ev_fleet_load(struct store *s, ev_fleet *f, lvd_err *err);
void ev_fleet_free(ev_fleet *f);

/* The fleet as markdown: "## Fleet" with a table of hosts (GPUs, winner per
 * model) and the backend maps (tg, pp) with the method stated. */
void ev_fleet_render_markdown(const ev_fleet *f, lvd_sb *out);
/* The same as JSON: {"hosts": [{"host", "gpus", "winners": [...], "ratios":
 * [...]}], "method", "backend_map": {"tg": [cell...], "pp": [...]}}, a cell
 * {"card", "backend", "n_hosts", "hosts", "median", "ci_lo", "ci_hi",
 * "coverage", "short_of_level"} (null for what n = 1 lacks). */
struct cJSON *ev_fleet_json(const ev_fleet *f);

#endif
