/* format.h: the fixed number and text formats the evidence page and its
 * charts share, so that the same figure reads the same everywhere and the
 * same store gives the same bytes (no locale, no "-0.0"). Not for layout. */
#ifndef LVD_EV_FORMAT_H
#define LVD_EV_FORMAT_H

#include "common/util.h"

#include <stddef.h>

/* Throughput: "86406" (>= 10000), "995.6" (>= 100), "54.20" (below). */
void ev_fmt_ts(lvd_sb *sb, double v);
/* A ratio as a signed percentage, "+41.5 %" ("+0.0 %" for anything that
 * rounds to zero; no decimal from 100 % on: "+1736 %"), with " (×18.4)"
 * appended when ratio >= 2. */
void ev_fmt_pct(lvd_sb *sb, double ratio);
/* "+41.5 % [+40.6, +42.3]": ratio with its CI as percentages. */
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
 * "tg-history", "pp-depth" or "tg-depth". Caller frees. */
char *ev_chart_name(const char *page, const char *sha256, const char *kind);
/* The directory of page ("." when it has none). Caller frees. */
char *ev_page_dir(const char *page);

#endif
