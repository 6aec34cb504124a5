/* render.h: the evidence page's bytes from an ev_page (model.h): the
 * markdown page, its SVG charts, and writing them all or none. Pure except
 * ev_write_files; no store, no clock: the same page gives the same bytes.
 *
 * Page layout (markdown):
 *   # TITLE
 *   host, models, measurement dates; how to read the figures
 *   ## Models              one row per model: verdict, rule, measured leader
 *   ## NAME (SHA12)        per model: sha256 and shape; the verdict (arm,
 *                          rule, objective, date, explanation), placement and
 *                          launch line; the table of engines and devices
 *                          (rank, arm, engine and build, pp and tg medians
 *                          with 95 % CI, deltas vs CPU and vs the next-ranked
 *                          arm with CI, samples kept and warm-up dropped,
 *                          correctness); failed and excluded arms with why;
 *                          the three charts
 *   ## Pin                 the newest decision with its rule and comparisons
 *                          (candidate vs pinned, delta with CI, p), its
 *                          issues, and the recent decisions
 * Charts beside the page, linked by relative path so they render on GitHub:
 *   STEM-SHA12-pp.svg, STEM-SHA12-tg.svg   horizontal bars per arm, median
 *                                          with CI whiskers, excluded arms
 *                                          listed without a bar
 *   STEM-SHA12-tg-history.svg, STEM-SHA12-pp-history.svg
 *                                          tg (pp) median per arm per session
 *                                          date, or per ISO week past 28 days,
 *                                          a panel per backend (svghist.c)
 *   STEM-SHA12-pp-depth.svg, STEM-SHA12-tg-depth.svg
 *                                          median per leading arm (rank 1 to
 *                                          EV_DEPTH_ARMS) at each llama-bench
 *                                          depth, when two or more were measured
 *   STEM-SHA12-serve.svg                   serving under load (lvd serve): time
 *                                          to first token and aggregate t/s
 *                                          against N, per leading launch line
 *                                          (rank 1 to EV_SERVE_LINES) */
#ifndef LVD_EV_RENDER_H
#define LVD_EV_RENDER_H

#include "common/util.h"
#include "evidence/model.h"

#include <stddef.h>
#include <stdio.h>

/* Which charts a model gets: pp bars when an arm has pp figures, tg bars
 * when one has tg figures, each history when there is a dated point of it. */
typedef struct ev_charts {
    int pp, tg, history, pp_history;
    int tpj;               /* the tg tokens-per-joule chart (evidence/energy.h) */
    int pp_depth, tg_depth; /* two or more depths of the leading arms */
    int serve;             /* a serving line with a point that has figures */
} ev_charts;

void ev_model_charts(const ev_model *m, ev_charts *out);

/* The markdown page; page_path names the page file (its base name gives the
 * chart names, see format.h ev_chart_name). */
void ev_render_markdown(const ev_page *p, const char *page_path, lvd_sb *out);

/* Placement, predicted next to actual (evidence/alloc.c): the model's
 * table (newest run of each arm, per device) and the page's estimator error
 * per backend (median ratio actual/predicted and its spread, every run). */
void ev_alloc_render_model(lvd_sb *sb, const ev_model *m);
/* llama.cpp's own fit beside ours (evidence/fitplan.c): the plans
 * llama-fit-params chose for each device (store: fit_plans), newest per
 * engine and device; nothing when there are none. */
void ev_fit_render_model(lvd_sb *sb, const ev_model *m);
void ev_alloc_render_summary(lvd_sb *sb, const ev_page *p);

/* Context ceilings (evidence/ceilings.c): the model's ceilings side by side
 * per backend, the placement's prediction beside each, and what choosing
 * one backend costs in window; the page's engines older than the pin. */
void ev_ceilings_render_model(lvd_sb *sb, const ev_model *m);
void ev_older_render(lvd_sb *sb, const ev_page *p);

/* The recent pin decisions, newest first, a run of the same decision
 * (pinned, candidate, decision, applied) folded into one row with its date
 * range and its rules counted by kind (evidence/pinfold.c). */
void ev_pin_render_recent(lvd_sb *sb, const ev_pin *pin);

/* Horizontal bar chart of one test kind (tg 1: the tg column, 0: pp); _of
 * with the unit of the figures named ("t/s"; evidence/energy.c: tokens per
 * joule). */
void ev_svg_bars(const ev_model *m, int tg, lvd_sb *out);
void ev_svg_bars_of(const ev_model *m, int tg, const char *unit, lvd_sb *out);
/* The history across nights (evidence/svghist.c, history.h): a panel per
 * backend, a line per arm, nights (or ISO weeks past 28 days) on x; of the
 * tg column (tg 1, ev_svg_history) or of the pp column (tg 0). */
void ev_svg_history(const ev_model *m, lvd_sb *out);
void ev_svg_history_of(const ev_model *m, int tg, lvd_sb *out);
/* tg (1) or pp (0) against depth: one line per leading arm, depths on x. */
void ev_svg_depth(const ev_model *m, int tg, lvd_sb *out);
/* Serving under load (evidence/serving.c): two panels, p50 time to first
 * token and aggregate t/s against N, one line per leading serving line. */
void ev_svg_serve(const ev_model *m, lvd_sb *out);
/* The model's serving section: a row per line and N (TTFT p50 and p95,
 * aggregate t/s with CI, status), then the chart's link; nothing when no
 * serving arm was measured. */
void ev_serve_render_model(lvd_sb *sb, const ev_model *m, const char *page_path);

typedef struct ev_file {
    char *path;
    char *data;
    size_t len;
} ev_file;

/* The page at page_path and every chart beside it, rendered to memory;
 * the page is the last file. Free with ev_files_free. */
void ev_render_files(const ev_page *p, const char *page_path, ev_file **files, size_t *n);
void ev_files_free(ev_file *files, size_t n);

/* Writes every file or none: each to a temporary file beside its target
 * (fsync'd) first; only when all are written are they renamed into place,
 * the page last, so the page never links a chart that is not there. On
 * failure the temporary files are removed and the targets are untouched.
 * The page's directory is created when missing. */
int ev_write_files(const ev_file *files, size_t n, lvd_err *err);

/* What lvd evidence prints (report.c): "wrote PAGE (N models, M charts)",
 * or as JSON {page, files, models: [{sha256, name, arms, leader, verdict}],
 * pin_decisions}. */
void ev_written_print(FILE *f, const ev_page *p, const ev_file *files, size_t n, int json);
/* lvd evidence --fleet: every host's fleet view of store s on f (markdown,
 * or JSON); an empty fleet is tool's error line. The exit status. */
struct store;
int ev_fleet_print(FILE *f, const char *tool, struct store *s, int json);

#endif
