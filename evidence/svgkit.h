/* svgkit.h: the drawing primitives every evidence chart shares (svg.c):
 * numbers with one decimal, escaped and cut text, lines, the document head,
 * axis steps and tick labels. Pure; the charts themselves are in svg.c
 * (bars, depth) and svghist.c (history). */
#ifndef LVD_EV_SVGKIT_H
#define LVD_EV_SVGKIT_H

#include "common/util.h"

#include <stddef.h>

#define EV_SVG_CHAR_W 7.2   /* a generous advance of a 12 px sans character */
#define EV_SVG_LABEL_MAX 64 /* longer labels are cut with an ellipsis */

/* The line charts' colours (Okabe-Ito, legible for colour-blind readers):
 * EV_SVG_PALETTE of them, the i-th modulo that. */
#define EV_SVG_PALETTE 8
const char *ev_svg_line_colour(size_t i);
/* A number with one decimal, never "-0.0". */
void ev_svg_num(lvd_sb *sb, double v);
/* Characters of s as drawn (UTF-8 aware; EV_SVG_LABEL_MAX + 1 when cut). */
size_t ev_svg_label_chars(const char *s);
/* A "nice" step (1, 2 or 5 x 10^k) for about `intervals` intervals over span. */
double ev_svg_nice_step(double span, double intervals);
/* An axis tick: as many decimals as the step needs ("0", "200", "0.5"). */
void ev_svg_tick_label(lvd_sb *sb, double v, double step);
/* <text>: s cut to EV_SVG_LABEL_MAX characters, then rest (may be NULL) whole;
 * extra: attributes (may be NULL). */
void ev_svg_text_parts(lvd_sb *sb, double x, double y, const char *anchor, const char *extra, const char *s,
                       const char *rest);
void ev_svg_text(lvd_sb *sb, double x, double y, const char *anchor, const char *extra, const char *s);
/* The chart's title at the top left, never cut. */
void ev_svg_title(lvd_sb *sb, const char *s);
/* A line chart's dot at (x, y) in colour; its point goes to pts ("x,y",
 * blank-separated) for ev_svg_polyline. */
void ev_svg_dot(lvd_sb *out, lvd_sb *pts, double x, double y, const char *colour);
/* The line through pts when it holds two points or more. */
void ev_svg_polyline(lvd_sb *out, const lvd_sb *pts, const char *colour);
/* <line> with style attributes. */
void ev_svg_line(lvd_sb *sb, double x1, double y1, double x2, double y2, const char *style);
/* The document head (w x h, the title as <title>) and a white background. */
void ev_svg_open(lvd_sb *sb, double w, double h, const char *title);

#endif
