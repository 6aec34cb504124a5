/* pin_print.c: the text lvd pin prints: the decision and its rule, the
 * comparisons one a line, the issues and the pin file's new line; with
 * --fleet, each host's outcome. Not for the JSON (pin_write.c, pin_fleet.c)
 * or the rules (pin.c). */
#include "select/pin.h"
#include "select/pin_fleet.h"

#include "select/armset.h"

#include <stdlib.h>
#include <string.h>

/* The comparisons, one a line; the arm column is as wide as its widest
 * arm's words (never cut: "ngl 99, fa 0, ub 512, ctk f16, ctv f16, t 16"). */
static void print_pairs(FILE *f, const sel_pin_eval *e)
{
    char **briefs = lvd_xcalloc(e->n_pairs, sizeof *briefs);
    int w = 3;
    for (size_t i = 0; i < e->n_pairs; i++) {
        briefs[i] = sel_params_brief(&e->pairs[i].params);
        int len = (int)strlen(briefs[i]);
        w = len > w ? len : w;
    }
    fprintf(f, "\ncandidate against pinned (median t/s; delta with 95 %% CI; Mann-Whitney p):\n");
    fprintf(f, "  %-12s  %-8s  %-*s  %-8s  %10s  %10s  %-28s  %-6s\n", "model", "backend", w, "arm", "test",
            "pinned", "candidate", "delta [CI]", "p");
    for (size_t i = 0; i < e->n_pairs; i++) {
        const sel_pin_pair *x = &e->pairs[i];
        lvd_sb d = {0};
        sel_pin_fmt_pct(&d, x->cmp.ratio);
        lvd_sb_adds(&d, " [");
        sel_pin_fmt_pct(&d, x->cmp.ci_lo);
        lvd_sb_adds(&d, ", ");
        sel_pin_fmt_pct(&d, x->cmp.ci_hi);
        lvd_sb_adds(&d, "]");
        fprintf(f, "  %-12.12s  %-8s  %-*s  %-8s  %10.1f  %10.1f  %-28s  %.4f  %s\n", x->artifact, x->backend, w,
                briefs[i], x->test, x->cmp.b.median, x->cmp.a.median, lvd_sb_str(&d), x->cmp.p,
                sel_pin_word_name(sel_pin_pair_word(&x->cmp)));
        lvd_sb_free(&d);
        free(briefs[i]);
    }
    free(briefs);
}

void sel_pin_print(FILE *f, const sel_pin_eval *e, const sel_pin_verdict *v, const char *pin_file, int applied)
{
    fprintf(f, "pinned %s (%s), candidate %s: %s\n", e->pinned_build, e->flavour ? e->flavour : "-",
           e->candidate_build ? e->candidate_build : "none", v->promote ? "promote" : "keep");
    fprintf(f, "  %s\n", v->rule);
    if (e->n_pairs)
        print_pairs(f, e);
    if (e->n_issues) {
        fprintf(f, "\nissues:\n");
        for (size_t i = 0; i < e->n_issues; i++) {
            const sel_pin_issue *x = &e->issues[i];
            fprintf(f, "  %s %s %s (model %.12s): %s%s%s\n", x->kind, x->backend, x->device[0] ? x->device : "CPU",
                   x->artifact, x->status, x->what ? ": " : "", x->what ? x->what : "");
        }
    }
    if (applied)
        fprintf(f, "\n%s: build %s, sha256.%s = %s\n", pin_file, e->candidate_build, e->flavour,
               e->candidate_digest);
}

void sel_pin_fleet_print(FILE *f, const sel_pin_fleet *fl, const char *pin_file, int applied)
{
    const sel_pin_eval *e = &fl->all;
    fprintf(f, "pinned %s (%s), candidate %s: %s\n", e->pinned_build, e->flavour ? e->flavour : "-",
            e->candidate_build ? e->candidate_build : "none", fl->v.promote ? "promote" : "keep");
    fprintf(f, "  %s\n\nper host:\n", fl->v.rule);
    for (size_t i = 0; i < fl->n_hosts; i++) {
        const sel_pin_fleet_host *h = &fl->hosts[i];
        fprintf(f, "  %-20s  %-16s  %s\n", h->host, sel_pin_hold_name(h->v.hold), h->v.rule);
    }
    fprintf(f, "\nevery host's comparisons: --json\n");
    if (applied)
        fprintf(f, "\n%s: build %s, sha256.%s = %s\n", pin_file, e->candidate_build, e->flavour, e->candidate_digest);
}

