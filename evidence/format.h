/* format.h: the fixed number and text formats the evidence page and its
 * charts share, so that the same figure reads the same everywhere and the
 * same store gives the same bytes (no locale, no "-0.0"). Not for layout. */
#ifndef LVD_EV_FORMAT_H
#define LVD_EV_FORMAT_H

#include "common/util.h"

#include <stddef.h>

/* Throughput: "86406" (>= 10000), "995.6" (>= 100), "54.20" (below). */
void ev_fmt_ts(lvd_sb *sb, double v);
/* 1 when a ratio is written as a factor rather than a percentage: at 2x
 * and beyond either way (ratio >= 2 or <= 0.5), where "+26902 %" is noise
 * and "×270" is read at a glance. The one rule for ev_fmt_pct/ev_fmt_delta. */
int ev_fmt_is_factor(double ratio);
/* A ratio as a signed percentage between 0.5 and 2, "+41.5 %" ("+0.0 %"
 * for anything that rounds to zero), else as a factor: "×270", "×18.4",
 * "×4.91", "×0.50", "×0.054" (three digits from 1 up, two significant
 * digits below 1). */
void ev_fmt_pct(lvd_sb *sb, double ratio);
/* "+41.5 % [+40.6, +42.3]" or, for a factor, "×270 [×255, ×287]": ratio
 * with its CI in the same form as the ratio. */
void ev_fmt_delta(lvd_sb *sb, double ratio, double lo, double hi);
/* "995.6 [986.4, 999.4]" */
void ev_fmt_ts_ci(lvd_sb *sb, double median, double lo, double hi);
/* p-values: "0.0079", "< 0.0001". */
void ev_fmt_p(lvd_sb *sb, double p);

/* Appends s escaped for a markdown table cell (| and \ escaped, newlines
 * and tabs as spaces, < and > as entities so no HTML is injected). */
void ev_md_cell(lvd_sb *sb, const char *s);
/* Appends s escaped for XML text and attribute values. */
void ev_xml(lvd_sb *sb, const char *s);
/* The anchor GitHub gives a heading: lower case, ASCII letters, digits, '-'
 * and '_' kept, spaces to '-', everything else dropped. */
void ev_anchor(lvd_sb *sb, const char *heading);

/* Chart file name beside the page: "<stem>-<sha12>-<kind>.svg" where stem is
 * the page's file name without ".md" and kind is "pp", "tg",
 * "tg-history", "pp-depth", "tg-depth" or "serve". Caller frees. */
char *ev_chart_name(const char *page, const char *sha256, const char *kind);
/* The directory of page ("." when it has none). Caller frees. */
char *ev_page_dir(const char *page);

#endif
