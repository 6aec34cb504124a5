/* energy.c: energy figures, columns, chart and pin delta of the evidence
 * page (see energy.h). Not for speed figures (model.c, markdown.c). */
#include "evidence/energy.h"

#include "evidence/format.h"
#include "evidence/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ev_energy_fill(stats_energy_stat *st, const sel_series *s, const stats_rule *rule)
{
    memset(st, 0, sizeof *st);
    if (s && s->n_tpj)
        stats_energy_summary(s->tpj, s->n_tpj, rule, st);
}

int ev_energy_any(const ev_model *m)
{
    for (size_t i = 0; i < m->n_arms; i++)
        if (m->arms[i].tg_j.has || m->arms[i].pp_j.has)
            return 1;
    return 0;
}

void ev_energy_header(lvd_sb *sb, const ev_model *m)
{
    if (ev_energy_any(m))
        lvd_sb_addf(sb, " %s J/token [95 %% CI] | %s J/token [95 %% CI] |", m->pp_test[0] ? m->pp_test : "pp",
                    m->tg_test[0] ? m->tg_test : "tg");
}

void ev_energy_separator(lvd_sb *sb, const ev_model *m)
{
    if (ev_energy_any(m))
        lvd_sb_adds(sb, "---:|---:|");
}

static void jpt_cell(lvd_sb *sb, const stats_energy_stat *st)
{
    if (!st->has) {
        lvd_sb_adds(sb, " – |");
        return;
    }
    lvd_sb_addf(sb, " %.4f [%.4f, %.4f] |", st->jpt, st->jpt_lo, st->jpt_hi);
}

void ev_energy_cells(lvd_sb *sb, const ev_model *m, const ev_arm *a)
{
    if (!ev_energy_any(m))
        return;
    jpt_cell(sb, &a->pp_j);
    jpt_cell(sb, &a->tg_j);
}

void ev_svg_tpj(const ev_model *m, lvd_sb *out)
{
    ev_model t = *m; /* shallow: the arms' labels are borrowed */
    t.arms = lvd_xcalloc(m->n_arms ? m->n_arms : 1, sizeof *t.arms);
    for (size_t i = 0; i < m->n_arms; i++) {
        t.arms[i] = m->arms[i];
        const stats_energy_stat *j = &m->arms[i].tg_j;
        t.arms[i].tg.has = j->has;
        t.arms[i].tg.median = j->tpj;
        t.arms[i].tg.lo = j->tpj_lo;
        t.arms[i].tg.hi = j->tpj_hi;
    }
    ev_svg_bars_of(&t, 1, "tokens per joule", out);
    free(t.arms);
}

void ev_energy_pin_cell(lvd_sb *sb, const sel_pin_row *r)
{
    if (!isfinite(r->pinned_tpj) || !isfinite(r->candidate_tpj) || !(r->pinned_tpj > 0)) {
        lvd_sb_adds(sb, "–");
        return;
    }
    lvd_sb_addf(sb, "%+.1f %% tokens/J", (r->candidate_tpj / r->pinned_tpj - 1) * 100);
}
