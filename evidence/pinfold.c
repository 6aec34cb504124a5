/* pinfold.c: the page's recent pin decisions (render.h
 * ev_pin_render_recent), a run of identical decisions folded into one row
 * with its date range, so a year of "keep" is one row, not 365. Identical:
 * the same pinned build, candidate, decision and applied flag, one after the
 * other (newest first). A folded row shows the newest rule whole and counts
 * the runs' rules by kind (the rule's words before its figures). Pure. */
#include "evidence/format.h"
#include "evidence/render.h"

#include <stdlib.h>
#include <string.h>

static int same_decision(const ev_pin_entry *a, const ev_pin_entry *b)
{
    return !strcmp(a->pinned, b->pinned) && !strcmp(a->candidate, b->candidate) &&
           !strcmp(a->decision, b->decision) && a->applied == b->applied;
}

/* Length of the rule's kind: its words before the first ':' or " (". */
static size_t kind_len(const char *rule)
{
    size_t n = strcspn(rule, ":");
    const char *paren = strstr(rule, " (");
    return paren && (size_t)(paren - rule) < n ? (size_t)(paren - rule) : n;
}

/* "9 regression, 21 no significant win": the kinds of rules e[0..n), in
 * order of first appearance (newest first). */
static void kinds_cell(lvd_sb *sb, const ev_pin_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = kind_len(e[i].rule), seen = 0, count = 0;
        for (size_t j = 0; j < n; j++) {
            int same = kind_len(e[j].rule) == len && !strncmp(e[j].rule, e[i].rule, len);
            seen += same && j < i;
            count += same;
        }
        if (seen)
            continue;
        char *kind = lvd_xstrndup(e[i].rule, len);
        lvd_sb_addf(sb, "%s%zu ", i ? ", " : "", count);
        ev_md_cell(sb, kind);
        free(kind);
    }
}

static void decision_row(lvd_sb *sb, const ev_pin_entry *e, size_t n)
{
    if (n == 1)
        lvd_sb_addf(sb, "| %s", e->date);
    else
        lvd_sb_addf(sb, "| %.10s to %.10s (%zu decisions)", e[n - 1].date, e[0].date, n);
    lvd_sb_adds(sb, " | ");
    ev_md_cell(sb, e->pinned);
    lvd_sb_adds(sb, " | ");
    ev_md_cell(sb, e->candidate);
    lvd_sb_addf(sb, " | %s%s | ", e->decision, e->applied ? " (applied)" : "");
    if (n > 1) {
        lvd_sb_adds(sb, "rules ");
        kinds_cell(sb, e, n);
        lvd_sb_addf(sb, "; newest (%.10s): ", e->date);
    }
    ev_md_cell(sb, e->rule);
    lvd_sb_adds(sb, " |\n");
}

void ev_pin_render_recent(lvd_sb *sb, const ev_pin *pin)
{
    lvd_sb_adds(sb, "Recent decisions, newest first (a run of the same decision is one row):\n\n"
                    "| decided | pinned | candidate | decision | rule |\n|---|---|---|---|---|\n");
    for (size_t i = 0, n; i < pin->n_hist; i += n) {
        n = 1;
        while (i + n < pin->n_hist && same_decision(&pin->hist[i], &pin->hist[i + n]))
            n++;
        decision_row(sb, &pin->hist[i], n);
    }
}
