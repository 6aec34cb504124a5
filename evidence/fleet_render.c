/* fleet_render.c: the fleet view as markdown and as JSON (evidence/fleet.h).
 * Pure: the same view gives the same bytes. Not for computing it (fleet.c,
 * fleet_map.c). */
#include "evidence/fleet.h"

#include "common/json.h"
#include "select/pin.h"

#include <cjson/cJSON.h>

/* The method, said once under each map and in the JSON. */
static const char method[] =
    "each cell: the backend's figure against the best other backend on that card on the same host (ratio of "
    "medians of the kept samples; above +0 % it wins by that much), per host the median over its models and "
    "tests, and across hosts the median with its 95 % distribution-free interval of a median (order "
    "statistics, binomial coverage); n = hosts; with 2 to 5 hosts the interval is the range and its coverage "
    "is below 95 % (said); n = 1 has no interval";

/* One cell's text: "+47.0 % [+40.1 %, +52.3 %] n = 6". */
static void cell_text(lvd_sb *sb, const ev_fleet_cell *c)
{
    if (!c) {
        lvd_sb_adds(sb, "-");
        return;
    }
    sel_pin_fmt_pct(sb, c->ci.median);
    if (c->ci.n >= 2) {
        lvd_sb_adds(sb, " [");
        sel_pin_fmt_pct(sb, c->ci.lo);
        lvd_sb_adds(sb, ", ");
        sel_pin_fmt_pct(sb, c->ci.hi);
        lvd_sb_adds(sb, "]");
        if (c->ci.short_of_level)
            lvd_sb_addf(sb, " range, %.1f %% coverage", c->ci.coverage * 100.0);
    }
    lvd_sb_addf(sb, " n = %zu", c->ci.n);
}

static void render_map(const ev_fleet *f, int tg, lvd_sb *out)
{
    int any = 0;
    for (size_t i = 0; i < f->n_cells; i++)
        any |= f->cells[i].tg == tg;
    if (!any)
        return;
    lvd_sb_addf(out, "\n### Backend map: %s\n\n%s.\n\n| card |", tg ? "tg" : "pp", method);
    for (size_t b = 0; b < f->n_backends; b++)
        lvd_sb_addf(out, " %s |", f->backends[b]);
    lvd_sb_adds(out, "\n|---|");
    for (size_t b = 0; b < f->n_backends; b++)
        lvd_sb_adds(out, "---|");
    lvd_sb_adds(out, "\n");
    for (size_t c = 0; c < f->n_cards; c++) {
        lvd_sb_addf(out, "| %s |", f->cards[c]);
        for (size_t b = 0; b < f->n_backends; b++) {
            lvd_sb_adds(out, " ");
            cell_text(out, ev_fleet_cell_of(f, f->cards[c], f->backends[b], tg));
            lvd_sb_adds(out, " |");
        }
        lvd_sb_adds(out, "\n");
    }
}

static void render_winner(lvd_sb *out, const ev_fleet_winner *w)
{
    lvd_sb_addf(out, "%s: ", w->model);
    if (w->engine)
        lvd_sb_addf(out, "%s (%s%s%s)", w->engine, w->backend, w->device[0] ? ", " : "", w->device);
    else
        lvd_sb_addf(out, "no winner (%s)", w->rule);
}

void ev_fleet_render_markdown(const ev_fleet *f, lvd_sb *out)
{
    lvd_sb_addf(out, "## Fleet\n\n%zu host%s write this store.\n\n| host | GPUs | winner per model (newest verdict) |\n"
                     "|---|---|---|\n",
                f->n_hosts, f->n_hosts == 1 ? "" : "s");
    for (size_t i = 0; i < f->n_hosts; i++) {
        const ev_fleet_host *h = &f->hosts[i];
        lvd_sb_addf(out, "| %s | ", h->host);
        for (size_t g = 0; g < h->n_gpus; g++)
            lvd_sb_addf(out, "%s%s", g ? ", " : "", h->gpus[g]);
        lvd_sb_adds(out, h->n_gpus ? " | " : "- | ");
        for (size_t k = 0; k < h->n_winners; k++) {
            if (k)
                lvd_sb_adds(out, "; ");
            render_winner(out, &h->winners[k]);
        }
        lvd_sb_adds(out, h->n_winners ? " |\n" : "- |\n");
    }
    render_map(f, 1, out);
    render_map(f, 0, out);
    if (!f->n_cells)
        lvd_sb_adds(out, "\nNo card was measured with two backends on any host: no backend map.\n");
}

static cJSON *host_json(const ev_fleet_host *h)
{
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "host", h->host);
    cJSON_AddItemToObject(x, "gpus", lvd_json_strings(h->gpus, h->n_gpus));
    cJSON *ws = cJSON_AddArrayToObject(x, "winners");
    for (size_t i = 0; i < h->n_winners; i++) {
        const ev_fleet_winner *w = &h->winners[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "sha256", w->artifact);
        cJSON_AddStringToObject(o, "model", w->model);
        cJSON_AddStringToObject(o, "objective", w->objective);
        cJSON_AddItemToObject(o, "engine", lvd_json_str(w->engine));
        cJSON_AddStringToObject(o, "backend", w->backend);
        cJSON_AddStringToObject(o, "device", w->device);
        cJSON_AddItemToObject(o, "card", lvd_json_str(w->card));
        cJSON_AddStringToObject(o, "rule", w->rule);
        cJSON_AddItemToArray(ws, o);
    }
    cJSON *rs = cJSON_AddArrayToObject(x, "ratios");
    for (size_t i = 0; i < h->n_ratios; i++) {
        const ev_fleet_ratio *r = &h->ratios[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "sha256", r->artifact);
        cJSON_AddStringToObject(o, "card", r->card);
        cJSON_AddStringToObject(o, "backend", r->backend);
        cJSON_AddStringToObject(o, "versus", r->versus);
        cJSON_AddStringToObject(o, "test", r->test);
        cJSON_AddItemToObject(o, "ratio", lvd_json_num(r->ratio));
        cJSON_AddItemToObject(o, "ci_lo", lvd_json_num(r->ci_lo));
        cJSON_AddItemToObject(o, "ci_hi", lvd_json_num(r->ci_hi));
        cJSON_AddItemToArray(rs, o);
    }
    return x;
}

static cJSON *cell_json(const ev_fleet_cell *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "card", c->card);
    cJSON_AddStringToObject(o, "backend", c->backend);
    cJSON_AddNumberToObject(o, "n_hosts", (double)c->ci.n);
    cJSON_AddItemToObject(o, "hosts", lvd_json_strings(c->hosts, c->n_hosts));
    cJSON_AddItemToObject(o, "median", lvd_json_num(c->ci.median));
    cJSON_AddItemToObject(o, "ci_lo", lvd_json_num(c->ci.lo));
    cJSON_AddItemToObject(o, "ci_hi", lvd_json_num(c->ci.hi));
    cJSON_AddItemToObject(o, "coverage", lvd_json_num(c->ci.coverage));
    cJSON_AddBoolToObject(o, "short_of_level", c->ci.short_of_level);
    return o;
}

cJSON *ev_fleet_json(const ev_fleet *f)
{
    cJSON *j = cJSON_CreateObject();
    cJSON *hs = cJSON_AddArrayToObject(j, "hosts");
    for (size_t i = 0; i < f->n_hosts; i++)
        cJSON_AddItemToArray(hs, host_json(&f->hosts[i]));
    cJSON_AddStringToObject(j, "method", method);
    cJSON *map = cJSON_AddObjectToObject(j, "backend_map");
    cJSON *tg = cJSON_AddArrayToObject(map, "tg"), *pp = cJSON_AddArrayToObject(map, "pp");
    for (size_t i = 0; i < f->n_cells; i++)
        cJSON_AddItemToArray(f->cells[i].tg ? tg : pp, cell_json(&f->cells[i]));
    return j;
}
