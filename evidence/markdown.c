/* markdown.c: the evidence page as GitHub-flavoured markdown (layout in
 * render.h). Pure: an ev_page in, bytes out. Not for the charts (svg.c). */
#include "evidence/energy.h"
#include "evidence/fleet.h"
#include "evidence/format.h"
#include "evidence/render.h"
#include "stats/serving.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ev_model_charts(const ev_model *m, ev_charts *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < m->n_arms; i++) {
        out->pp |= m->arms[i].pp.has;
        out->tg |= m->arms[i].tg.has;
        out->history |= m->arms[i].n_hist > 0;
        out->pp_history |= m->arms[i].n_hist_pp > 0;
        out->tpj |= m->arms[i].tg_j.has;
        for (size_t k = 0; k < m->arms[i].n_depth && m->n_depths > 1; k++) {
            out->pp_depth |= m->arms[i].depth[k].has_pp;
            out->tg_depth |= m->arms[i].depth[k].has_tg;
        }
    }
    for (size_t i = 0; i < m->n_serve; i++)
        out->serve |= m->serve[i].rank > 0;
}

static void heading(lvd_sb *sb, const ev_model *m)
{
    lvd_sb_addf(sb, "%s (%.12s)", m->name, m->sha256);
}

static const ev_arm *leader(const ev_model *m)
{
    return m->n_arms && m->arms[0].rank == 1 ? &m->arms[0] : NULL;
}

static const char *rank_cell(const ev_arm *a, char *buf, size_t len)
{
    if (a->rank)
        snprintf(buf, len, "%zu%s", a->rank, a->is_verdict ? " ★" : "");
    else if (!strcmp(a->status, "ok"))
        snprintf(buf, len, "–%s", a->is_verdict ? " ★" : "");
    else if (!strcmp(a->status, "gpu_ignored"))
        snprintf(buf, len, "GPU ignored");
    else
        snprintf(buf, len, "%s", a->status);
    return buf;
}

/* "995.6 [986.4, 999.4]" plus the test when it is not the column's. */
static void stat_cell(lvd_sb *sb, const ev_stat *s, const char *column)
{
    if (!s->has) {
        lvd_sb_adds(sb, "–");
        return;
    }
    ev_fmt_ts_ci(sb, s->median, s->lo, s->hi);
    if (strcmp(s->test, column))
        lvd_sb_addf(sb, " (%s)", s->test);
}

static void delta_cell(lvd_sb *sb, const ev_delta *d, const ev_model *m, int show_other)
{
    if (!d->has) {
        lvd_sb_adds(sb, "–");
        return;
    }
    ev_fmt_delta(sb, d->ratio, d->lo, d->hi);
    if (show_other)
        lvd_sb_addf(sb, " vs #%zu", m->arms[d->other].rank);
}

/* sep as it is, then s as markdown text (escaped, one line). */
static void cell(lvd_sb *sb, const char *sep, const char *s)
{
    lvd_sb_adds(sb, sep);
    ev_md_cell(sb, s);
}

static void samples_cell(lvd_sb *sb, const ev_arm *a)
{
    if (!a->pp.n && !a->tg.n && !a->pp.n_warmup && !a->tg.n_warmup) {
        lvd_sb_adds(sb, "–");
        return;
    }
    int first = 1;
    const ev_stat *st[2] = {&a->pp, &a->tg};
    const char *kind[2] = {"pp", "tg"};
    for (int k = 0; k < 2; k++) {
        if (!st[k]->test[0])
            continue;
        lvd_sb_addf(sb, "%s%s %zu (+%zu)", first ? "" : ", ", kind[k], st[k]->n, st[k]->n_warmup);
        first = 0;
    }
}

static void arms_table(lvd_sb *sb, const ev_model *m)
{
    lvd_sb_addf(sb, "| # | arm | engine (build) | %s t/s [95 %% CI] | %s t/s [95 %% CI] | pp vs CPU | tg vs CPU "
                    "| pp vs other backend | tg vs other backend | samples kept (+warm-up) | correctness |",
                m->pp_test[0] ? m->pp_test : "pp", m->tg_test[0] ? m->tg_test : "tg");
    ev_energy_header(sb, m);
    lvd_sb_adds(sb, "\n|---|---|---|---:|---:|---:|---:|---:|---:|---|---|");
    ev_energy_separator(sb, m);
    lvd_sb_adds(sb, "\n");
    for (size_t i = 0; i < m->n_arms; i++) {
        const ev_arm *a = &m->arms[i];
        char rank[32];
        lvd_sb_addf(sb, "| %s", rank_cell(a, rank, sizeof rank));
        cell(sb, " | ", a->label);
        cell(sb, " | ", a->engine);
        cell(sb, " (", a->build);
        lvd_sb_adds(sb, ") | ");
        stat_cell(sb, &a->pp, m->pp_test);
        lvd_sb_adds(sb, " | ");
        stat_cell(sb, &a->tg, m->tg_test);
        for (int tg = 0; tg < 2; tg++) { /* pp, then tg against the CPU */
            lvd_sb_adds(sb, " | ");
            if (a->is_ref)
                lvd_sb_adds(sb, "reference");
            else
                delta_cell(sb, tg ? &a->tg_vs_cpu : &a->pp_vs_cpu, m, 0);
        }
        lvd_sb_adds(sb, " | ");
        delta_cell(sb, &a->pp_vs_alt, m, 1);
        lvd_sb_adds(sb, " | ");
        delta_cell(sb, &a->tg_vs_alt, m, 1);
        lvd_sb_adds(sb, " | ");
        samples_cell(sb, a);
        cell(sb, " | ", a->check);
        lvd_sb_adds(sb, " |");
        ev_energy_cells(sb, m, a);
        lvd_sb_adds(sb, "\n");
    }
}

static void verdict_block(lvd_sb *sb, const ev_page *p, const ev_model *m)
{
    const ev_arm *lead = leader(m);
    if (m->has_verdict) {
        lvd_sb_adds(sb, "**Verdict:** ");
        ev_md_cell(sb, m->verdict_arm);
        lvd_sb_adds(sb, " (rule `");
        ev_md_cell(sb, m->verdict_rule);
        lvd_sb_addf(sb, "`, objective %s, decided %s).\n", m->objective, m->verdict_date);
        if (m->verdict_explain) {
            lvd_sb_adds(sb, "\n> ");
            ev_md_cell(sb, m->verdict_explain);
            lvd_sb_adds(sb, "\n");
        }
    } else {
        lvd_sb_addf(sb, "**Verdict:** none recorded for this model on `%s` (`lvd select --model FILE --record`, "
                        "or `--artifact SHA256` for imported results, records one).\n",
                    p->host);
    }
    lvd_sb_adds(sb, "\n");
    if (lead) {
        int pp = !strcmp(m->objective, "pp");
        const ev_delta *second = pp ? &m->second_pp : &m->second_tg;
        const ev_delta *alt = pp ? &lead->pp_vs_alt : &lead->tg_vs_alt;
        const char *kind = pp ? "pp" : "tg";
        /* a serve verdict's arms are the serving section's: llama-bench's rank on tg */
        lvd_sb_addf(sb, "- Measured leader by %s: ", lvd_starts_with(m->objective, "serve") ? "tg" : m->objective);
        ev_md_cell(sb, lead->label);
        lvd_sb_addf(sb, " (ranking state `%s`)", m->state ? m->state : "none");
        if (second->has) {
            lvd_sb_addf(sb, "; %s ", kind);
            ev_fmt_delta(sb, second->ratio, second->lo, second->hi);
            lvd_sb_adds(sb, " against the arm ranked second (");
            ev_md_cell(sb, m->arms[second->other].label);
            lvd_sb_adds(sb, ")");
        }
        if (alt->has) {
            lvd_sb_addf(sb, "; %s ", kind);
            ev_fmt_delta(sb, alt->ratio, alt->lo, alt->hi);
            lvd_sb_adds(sb, " against the best other backend (");
            ev_md_cell(sb, m->arms[alt->other].label);
            lvd_sb_adds(sb, ")");
        }
        lvd_sb_adds(sb, ".\n");
    } else {
        lvd_sb_adds(sb, "- Measured leader: none (no eligible arm has samples of the objective's test).\n");
    }
    if (m->has_verdict || m->launch_of_leader) {
        const char *leader = " the measured leader (no verdict: `lvd select` decides)";
        const char *whose = m->launch_of_leader ? " of the measured leader (no verdict: `lvd select` decides)" : "";
        if (m->placement) {
            lvd_sb_addf(sb, "- Placement%s: ", whose);
            ev_md_cell(sb, m->placement);
        } else {
            lvd_sb_addf(sb, "- Placement unknown%s%s: ", m->launch_of_leader ? " for" : "",
                        m->launch_of_leader ? leader : "");
            ev_md_cell(sb, m->placement_unknown ? m->placement_unknown : "not computed");
        }
        lvd_sb_adds(sb, ".\n");
        if (m->launch) {
            lvd_sb_addf(sb, "- Launch line%s:\n\n  ```sh\n  ", whose);
            for (const char *c = m->launch; *c; c++)
                lvd_sb_adds(sb, *c == '\n' ? "\n  " : (char[2]){*c, 0});
            lvd_sb_adds(sb, "\n  ```\n");
            if (m->launch_note) {
                lvd_sb_adds(sb, "\n  ");
                ev_md_cell(sb, m->launch_note);
                lvd_sb_adds(sb, ".\n");
            }
        } else {
            lvd_sb_addf(sb, "- Launch line%s: not available (the engine is no longer registered).\n", whose);
        }
    }
}

static void excluded_list(lvd_sb *sb, const ev_model *m)
{
    int any = 0;
    for (size_t i = 0; i < m->n_arms; i++) {
        const ev_arm *a = &m->arms[i];
        if (!a->why)
            continue;
        if (!any)
            lvd_sb_adds(sb, "\nFailed, excluded and partly failed arms:\n\n");
        any = 1;
        cell(sb, "- ", a->label);
        cell(sb, " (", a->engine);
        cell(sb, "): ", a->why);
        lvd_sb_adds(sb, "\n");
    }
}

static void chart_link(lvd_sb *sb, const char *page_path, const ev_model *m, const char *kind, const char *alt)
{
    char *name = ev_chart_name(page_path, m->sha256, kind);
    lvd_sb_addf(sb, "![%s](%s)\n\n", alt, name);
    free(name);
}

static void model_section(lvd_sb *sb, const ev_page *p, const ev_model *m, const char *page_path)
{
    lvd_sb_adds(sb, "\n## ");
    heading(sb, m);
    lvd_sb_addf(sb, "\n\nsha256 `%s`", m->sha256);
    if (m->desc && *m->desc)
        cell(sb, " · ", m->desc);
    lvd_sb_adds(sb, "\n\n");
    verdict_block(sb, p, m);
    lvd_sb_adds(sb, "\n### Engines and devices\n\n");
    if (!m->n_arms) {
        lvd_sb_adds(sb, "No runs of this model on this host.\n");
        return;
    }
    if (m->common && *m->common) {
        cell(sb, "Every arm ran with: ", m->common);
        lvd_sb_adds(sb, ".\n\n");
    }
    arms_table(sb, m);
    lvd_sb_adds(sb, "\n★ the recorded verdict. \"vs other backend\": against the best-ranked arm of another "
                    "backend (#N), so the leader's row shows its margin over the runner-up backend.\n");
    excluded_list(sb, m);
    ev_alloc_render_model(sb, m);
    ev_ceilings_render_model(sb, m);
    ev_fit_render_model(sb, m);
    ev_charts c;
    ev_model_charts(m, &c);
    if (c.pp || c.tg || c.history)
        lvd_sb_adds(sb, "\n");
    char alt[128];
    if (c.pp) {
        snprintf(alt, sizeof alt, "%s t/s per arm, median with 95 %% CI", m->pp_test[0] ? m->pp_test : "pp");
        chart_link(sb, page_path, m, "pp", alt);
    }
    if (c.tg) {
        snprintf(alt, sizeof alt, "%s t/s per arm, median with 95 %% CI", m->tg_test[0] ? m->tg_test : "tg");
        chart_link(sb, page_path, m, "tg", alt);
    }
    if (c.history) {
        snprintf(alt, sizeof alt, "%s t/s per arm across nights", m->tg_test[0] ? m->tg_test : "tg");
        chart_link(sb, page_path, m, "tg-history", alt);
    }
    if (c.pp_history) {
        snprintf(alt, sizeof alt, "%s t/s per arm across nights", m->pp_test[0] ? m->pp_test : "pp");
        chart_link(sb, page_path, m, "pp-history", alt);
    }
    if (c.tpj) {
        snprintf(alt, sizeof alt, "%s tokens per joule per arm, median with 95 %% CI (net of idle)",
                 m->tg_test[0] ? m->tg_test : "tg");
        chart_link(sb, page_path, m, "tg-tpj", alt);
    }
    if (c.tg_depth)
        chart_link(sb, page_path, m, "tg-depth", "tg t/s against context depth, leading arms");
    if (c.pp_depth)
        chart_link(sb, page_path, m, "pp-depth", "pp t/s against context depth, leading arms");
    ev_serve_render_model(sb, m, page_path);
}

static const char *model_name(const ev_page *p, const char *sha, char *buf, size_t len)
{
    for (size_t i = 0; i < p->n_models; i++)
        if (!strcmp(p->models[i].sha256, sha))
            return p->models[i].name;
    snprintf(buf, len, "%.12s", sha);
    return buf;
}

/* What a serving test's t/s are, when the comparisons have one. */
static void serving_note(lvd_sb *sb, const ev_pin *pin)
{
    for (size_t i = 0; i < pin->n_rows; i++)
        if (stats_serve_test_kind(pin->rows[i].test, NULL, NULL) != STATS_SERVE_NONE) {
            lvd_sb_adds(sb, "Serving tests (`lvd serve`, the arm's launch line at `-np N` under N clients): "
                            "serve-ttft's t/s are prompt tokens per second to the first token (P / TTFT), so -50 % "
                            "is a doubled time to first token; serve-tps's are the aggregate generation rate.\n\n");
            return;
        }
}

static void pin_section(lvd_sb *sb, const ev_page *p)
{
    const ev_pin *pin = &p->pin;
    lvd_sb_adds(sb, "\n## Pin\n\n");
    if (!pin->n_hist) {
        lvd_sb_adds(sb, "No pin decision recorded in this store (`lvd pin --pin-file FILE` records one each "
                        "night).\n");
        if (p->hunt.culprit || p->hunt.pin_note)
            lvd_sb_adds(sb, "\n");
        ev_hunt_render_culprit(sb, &p->hunt);
        return;
    }
    const ev_pin_entry *d = &pin->hist[0];
    lvd_sb_addf(sb, "Newest decision (%s): **%s** — pinned %s, candidate %s%s.\n\n> ", d->date, d->decision,
                d->pinned, d->candidate, d->applied ? "; the pin file was rewritten" : "");
    ev_md_cell(sb, d->rule);
    lvd_sb_adds(sb, "\n\n");
    ev_hunt_render_culprit(sb, &p->hunt);
    if (pin->n_rows) {
        lvd_sb_adds(sb, "Candidate against pinned, per model, backend, arm and test (newest session, kept "
                        "samples; no regression needs CI low >= -2 %, a win the sequential interval's low > +2 %; "
                        "below that, a regression when the CI's high < 0 %, else inconclusive):\n\n");
        lvd_sb_adds(sb, "| model | backend | arm | test | pinned t/s | candidate t/s | Δ [95 % CI] | p | | "
                        "energy Δ |\n");
        lvd_sb_adds(sb, "|---|---|---|---|---:|---:|---:|---:|---|---:|\n");
        for (size_t i = 0; i < pin->n_rows; i++) {
            const sel_pin_row *r = &pin->rows[i];
            char buf[16];
            cell(sb, "| ", model_name(p, r->artifact, buf, sizeof buf));
            cell(sb, " | ", r->backend);
            cell(sb, " | ", r->params);
            cell(sb, " | ", r->test);
            lvd_sb_adds(sb, " | ");
            ev_fmt_ts(sb, r->pinned_median);
            lvd_sb_addf(sb, " (n %zu) | ", r->pinned_n);
            ev_fmt_ts(sb, r->candidate_median);
            lvd_sb_addf(sb, " (n %zu) | ", r->candidate_n);
            ev_fmt_delta(sb, r->ratio, r->ci_lo, r->ci_hi);
            lvd_sb_adds(sb, " | ");
            ev_fmt_p(sb, r->p);
            lvd_sb_addf(sb, " | %s | ", r->verdict);
            ev_energy_pin_cell(sb, r);
            lvd_sb_adds(sb, " |\n");
        }
        lvd_sb_adds(sb, "\n");
        serving_note(sb, pin);
    }
    if (pin->n_issues) {
        lvd_sb_adds(sb, "Issues of the candidate:\n\n");
        for (size_t i = 0; i < pin->n_issues; i++) {
            cell(sb, "- ", pin->issues[i]);
            lvd_sb_adds(sb, "\n");
        }
        lvd_sb_adds(sb, "\n");
    }
    ev_pin_render_recent(sb, pin);
}

static void summary_table(lvd_sb *sb, const ev_page *p)
{
    lvd_sb_adds(sb, "\n## Models\n\n| model | verdict | rule | measured leader | vs runner-up backend |\n"
                    "|---|---|---|---|---:|\n");
    for (size_t i = 0; i < p->n_models; i++) {
        const ev_model *m = &p->models[i];
        lvd_sb sh = {0}, an = {0};
        heading(&sh, m);
        ev_anchor(&an, lvd_sb_str(&sh));
        cell(sb, "| [", lvd_sb_str(&sh));
        lvd_sb_addf(sb, "](#%s) | ", lvd_sb_str(&an));
        lvd_sb_free(&sh);
        lvd_sb_free(&an);
        if (m->has_verdict) {
            ev_md_cell(sb, m->verdict_arm);
            cell(sb, " | `", m->verdict_rule);
            lvd_sb_adds(sb, "` | ");
        } else {
            lvd_sb_adds(sb, "none recorded | – | ");
        }
        const ev_arm *lead = leader(m);
        ev_md_cell(sb, lead ? lead->label : "–");
        lvd_sb_adds(sb, " | ");
        const ev_delta *d = lead ? (strcmp(m->objective, "pp") ? &lead->tg_vs_alt : &lead->pp_vs_alt) : NULL;
        if (d && d->has)
            ev_fmt_delta(sb, d->ratio, d->lo, d->hi);
        else
            lvd_sb_adds(sb, "–");
        lvd_sb_adds(sb, " |\n");
    }
}

void ev_render_markdown(const ev_page *p, const char *page_path, lvd_sb *out)
{
    lvd_sb_adds(out, "# ");
    ev_md_cell(out, p->title);
    lvd_sb_addf(out, "\n\nHost `%s` · %zu model%s", p->host, p->n_models, p->n_models == 1 ? "" : "s");
    if (p->first_date[0])
        lvd_sb_addf(out, " · measured %s to %s (UTC)", p->first_date, p->last_date);
    lvd_sb_adds(out, ". Written by `lvd evidence` from the llama-verdict store; the same store gives the same "
                     "page.\n\n"
                     "Figures are medians of the kept samples of each arm's newest session (warm-up samples "
                     "dropped), with a 95 % bootstrap confidence interval. Deltas are ratios of medians minus "
                     "one, with their 95 % CI. An arm is one engine with one device and parameter set; arms "
                     "that failed, ignored the GPU flags or failed their correctness check are shown but never "
                     "ranked.\n");
    ev_older_render(out, p);
    for (size_t i = 0; i < p->n_notes; i++) {
        lvd_sb_adds(out, "\n> **Note:** ");
        ev_md_cell(out, p->notes[i]);
        lvd_sb_adds(out, "\n");
    }
    if (p->n_models)
        summary_table(out, p);
    for (size_t i = 0; i < p->n_models; i++)
        model_section(out, p, &p->models[i], page_path);
    ev_alloc_render_summary(out, p);
    pin_section(out, p);
    ev_hunt_render_drift(out, &p->hunt);
    if (p->fleet) {
        lvd_sb_adds(out, "\n");
        ev_fleet_render_markdown(p->fleet, out);
    }
}
