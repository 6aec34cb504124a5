/* pin_fleet.h: `lvd pin --fleet`: one promotion decision for every host of
 * the store. Each host is judged by the single-host rule table
 * (pin.h: sel_pin_gather and sel_pin_judge with its host); the fleet's rule
 * over those outcomes, in this order:
 *   1 no candidate measured  no host measured both builds (every host's
 *                            outcome is no-candidate)
 *   2 held by a host         a host that measured both builds was held by
 *                            correctness, a failed candidate, too few samples
 *                            or a regression: the fleet keeps the pin and the
 *                            rule names that host ("regression on gpu-box-3:
 *                            tg128 on vulkan -4.1 % ..."); the first such host
 *                            in rule-table order, then host name, is named,
 *                            and how many others held too
 *   3 no significant win     no host shows a win
 *   4 the single-host rules 7-8 on the fleet's evaluation (every host's
 *                            pairs, issues and sessions together, the newest
 *                            decision for the same two builds as the
 *                            previous one): a second night on other
 *                            measurements, a digest to record
 * Hosts whose outcome is no-candidate did not measure both builds and are
 * listed, not counted. The decision is recorded once (sel_pin_record of the
 * fleet's evaluation, its document with every host's outcome and each
 * comparison's host: sel_pin_fleet_json), so the next night's rule 7 reads it. */
#ifndef LVD_SEL_PIN_FLEET_H
#define LVD_SEL_PIN_FLEET_H

#include "select/pin.h"

#include <stdio.h>

struct store;
struct builds_pin;
struct cJSON;

typedef struct sel_pin_fleet_host {
    char *host;
    sel_pin_eval e;
    sel_pin_verdict v;
} sel_pin_fleet_host;

typedef struct sel_pin_fleet {
    sel_pin_fleet_host *hosts; /* sorted by name */
    size_t n_hosts;
    sel_pin_eval all;          /* every host's pairs, issues and sessions */
    sel_pin_verdict v;         /* the fleet's decision */
    const char *held_by;       /* the host named by rule 2; NULL otherwise */
} sel_pin_fleet;

/* Gathers every host of the store (store/fleetdb.h) for the pin's build and
 * o->candidate (o->host is ignored). 0, or -1 with err (store failures). */
int sel_pin_fleet_gather(struct store *s, const struct builds_pin *pin, const sel_pin_opts *o,
                         sel_pin_fleet *f, lvd_err *err);
/* Appends one host's evaluation (taken over: f frees it) to f and to
 * f->all. For sel_pin_fleet_gather and tests. */
void sel_pin_fleet_add(sel_pin_fleet *f, const char *host, sel_pin_eval *e);
/* The fleet's rule (header comment) over f's hosts into f->v and f->held_by.
 * Judges each host first. Pure. */
void sel_pin_fleet_judge(sel_pin_fleet *f);
void sel_pin_fleet_free(sel_pin_fleet *f);
/* lvd pin --fleet's text (pin_print.c): the decision, then each host's
 * outcome, one line each. */
void sel_pin_fleet_print(FILE *f, const sel_pin_fleet *fl, const char *pin_file, int applied);

/* Adds the fleet to details (sel_pin_details_json of f->all): "host" in
 * each comparison and issue, and "hosts", each host's outcome: [{"host",
 * "decision", "hold", "rule", "measured", "held_the_fleet", "wins",
 * "regressions", "comparisons"}]. */
void sel_pin_fleet_json(const sel_pin_fleet *f, struct cJSON *details);

/* Reads a previous decision's would_promote and sessions into e (defined
 * beside sel_pin_gather, select/pin_gather.c, which uses it too). */
void sel_pin_read_prev(const lvd_pin_decision *d, sel_pin_eval *e);

#endif
