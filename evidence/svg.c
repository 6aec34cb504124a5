/* svg.c: the evidence charts as hand-written SVG 1.1 (no dependency): the
 * shared primitives (svgkit.h), bars with CI whiskers per arm, and speed
 * against context depth (the history is svghist.c). Pure: an
 * ev_model in, bytes out; every coordinate printed with one decimal so the
 * same model gives the same bytes. Not for the page (markdown.c). */
#include "evidence/format.h"
#include "evidence/render.h"
#include "evidence/svgkit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FONT "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""

/* Colour of a backend's bars (Okabe-Ito, legible for colour-blind readers). */
static const char *backend_colour(const char *backend)
{
    static const char *const map[][2] = {
        {"cuda", "#009E73"}, {"vulkan", "#D55E00"}, {"cpu", "#7F7F7F"}, {"rocm", "#CC79A7"},
        {"metal", "#56B4E9"}, {"sycl", "#0072B2"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(map); i++)
        if (!strcmp(backend, map[i][0]))
            return map[i][1];
    return "#E69F00";
}

const char *ev_svg_line_colour(size_t i)
{
    static const char *const pal[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#000000", "#7F7F7F"};
    return pal[i % LVD_ARRAY_LEN(pal)];
}

/* A number with one decimal, never "-0.0". */
void ev_svg_num(lvd_sb *sb, double v)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%.1f", v);
    if (!strcmp(buf, "-0.0"))
        snprintf(buf, sizeof buf, "0.0");
    lvd_sb_adds(sb, buf);
}

void ev_svg_dot(lvd_sb *out, lvd_sb *pts, double x, double y, const char *colour)
{
    lvd_sb_adds(pts, pts->len ? " " : "");
    ev_svg_num(pts, x);
    lvd_sb_adds(pts, ",");
    ev_svg_num(pts, y);
    lvd_sb_adds(out, "<circle cx=\"");
    ev_svg_num(out, x);
    lvd_sb_adds(out, "\" cy=\"");
    ev_svg_num(out, y);
    lvd_sb_addf(out, "\" r=\"3.5\" fill=\"%s\"/>\n", colour);
}

void ev_svg_polyline(lvd_sb *out, const lvd_sb *pts, const char *colour)
{
    if (strchr(lvd_sb_str(pts), ' '))
        lvd_sb_addf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>\n", colour,
                    lvd_sb_str(pts));
}

/* Escaped text cut to EV_SVG_LABEL_MAX characters (UTF-8 aware). */
static void label_text(lvd_sb *sb, const char *s)
{
    size_t chars = 0, i = 0;
    for (; s[i] && chars < EV_SVG_LABEL_MAX; i++)
        chars += ((unsigned char)s[i] & 0xC0) != 0x80;
    while (s[i] && ((unsigned char)s[i] & 0xC0) == 0x80)
        i++;
    char *cut = lvd_xstrndup(s, i);
    ev_xml(sb, cut);
    if (s[i])
        lvd_sb_adds(sb, "…");
    free(cut);
}

size_t ev_svg_label_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n < EV_SVG_LABEL_MAX ? n : EV_SVG_LABEL_MAX + 1;
}

double ev_svg_nice_step(double span, double intervals)
{
    if (!(span > 0) || !(intervals > 0))
        return 1;
    double raw = span / intervals, mag = pow(10.0, floor(log10(raw)));
    double f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* The bar and depth charts' step: about five intervals from 0 to max. */
static double nice_step(double max)
{
    return ev_svg_nice_step(max, 5.0);
}

/* <text>: s cut to EV_SVG_LABEL_MAX characters, then rest (may be NULL) whole. */
void ev_svg_text_parts(lvd_sb *sb, double x, double y, const char *anchor, const char *extra, const char *s,
                       const char *rest)
{
    lvd_sb_adds(sb, "<text x=\"");
    ev_svg_num(sb, x);
    lvd_sb_adds(sb, "\" y=\"");
    ev_svg_num(sb, y);
    lvd_sb_addf(sb, "\" text-anchor=\"%s\"%s%s>", anchor, extra ? " " : "", extra ? extra : "");
    label_text(sb, s);
    if (rest)
        ev_xml(sb, rest);
    lvd_sb_adds(sb, "</text>\n");
}

void ev_svg_text(lvd_sb *sb, double x, double y, const char *anchor, const char *extra, const char *s)
{
    ev_svg_text_parts(sb, x, y, anchor, extra, s, NULL);
}

/* The chart's title, never cut. */
void ev_svg_title(lvd_sb *sb, const char *s)
{
    ev_svg_text_parts(sb, 10, 20, "start", "font-size=\"14\" font-weight=\"bold\"", "", s);
}

/* An axis tick: as many decimals as the step needs ("0", "200", "0.5"). */
void ev_svg_tick_label(lvd_sb *sb, double v, double step)
{
    int d = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    char buf[48];
    snprintf(buf, sizeof buf, "%.*f", d, v);
    lvd_sb_adds(sb, buf);
}

void ev_svg_line(lvd_sb *sb, double x1, double y1, double x2, double y2, const char *style)
{
    lvd_sb_adds(sb, "<line x1=\"");
    ev_svg_num(sb, x1);
    lvd_sb_adds(sb, "\" y1=\"");
    ev_svg_num(sb, y1);
    lvd_sb_adds(sb, "\" x2=\"");
    ev_svg_num(sb, x2);
    lvd_sb_adds(sb, "\" y2=\"");
    ev_svg_num(sb, y2);
    lvd_sb_addf(sb, "\" %s/>\n", style);
}

void ev_svg_open(lvd_sb *sb, double w, double h, const char *title)
{
    lvd_sb_adds(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"");
    ev_svg_num(sb, w);
    lvd_sb_adds(sb, "\" height=\"");
    ev_svg_num(sb, h);
    lvd_sb_adds(sb, "\" viewBox=\"0 0 ");
    ev_svg_num(sb, w);
    lvd_sb_adds(sb, " ");
    ev_svg_num(sb, h);
    lvd_sb_adds(sb, "\" " FONT " font-size=\"12\">\n<title>");
    ev_xml(sb, title);
    lvd_sb_adds(sb, "</title>\n<rect x=\"0\" y=\"0\" width=\"");
    ev_svg_num(sb, w);
    lvd_sb_adds(sb, "\" height=\"");
    ev_svg_num(sb, h);
    lvd_sb_adds(sb, "\" fill=\"#ffffff\"/>\n");
}

/* Vertical grid lines with their labels below the plot, for values 0..max. */
static void x_grid(lvd_sb *sb, double x0, double scale, double max, double y_top, double y_bottom)
{
    double step = nice_step(max);
    for (double v = 0; v <= max + step * 1e-9; v += step) {
        double x = x0 + v * scale;
        ev_svg_line(sb, x, y_top, x, y_bottom, "stroke=\"#e0e0e0\" stroke-width=\"1\"");
        lvd_sb lbl = {0};
        ev_svg_tick_label(&lbl, v, step);
        ev_svg_text(sb, x, y_bottom + 14, "middle", "fill=\"#555555\"", lvd_sb_str(&lbl));
        lvd_sb_free(&lbl);
    }
}

void ev_svg_bars(const ev_model *m, int tg, lvd_sb *out)
{
    ev_svg_bars_of(m, tg, "t/s", out);
}

void ev_svg_bars_of(const ev_model *m, int tg, const char *unit, lvd_sb *out)
{
    const char *test = tg ? m->tg_test : m->pp_test;
    if (!test[0])
        test = tg ? "tg" : "pp";
    double max = 0;
    size_t longest = 10;
    for (size_t i = 0; i < m->n_arms; i++) {
        const ev_stat *s = tg ? &m->arms[i].tg : &m->arms[i].pp;
        if (s->has && s->hi > max)
            max = s->hi;
        if (s->has && s->median > max)
            max = s->median;
        if (ev_svg_label_chars(m->arms[i].label) > longest)
            longest = ev_svg_label_chars(m->arms[i].label);
    }
    double step = nice_step(max);
    double axis_max = max > 0 ? ceil(max / step) * step : 1;
    const double row = 24, top = 44, plot_w = 420, value_w = 150;
    double label_w = ceil(longest * EV_SVG_CHAR_W) + 20;
    double x0 = label_w, w = label_w + plot_w + value_w;
    double h = top + row * (double)(m->n_arms ? m->n_arms : 1) + 44;
    double scale = plot_w / axis_max;

    lvd_sb title = {0};
    lvd_sb_addf(&title, "%s %s per arm (median, 95 %% CI): %s", test, unit, m->name);
    ev_svg_open(out, w, h, lvd_sb_str(&title));
    ev_svg_title(out, lvd_sb_str(&title));
    lvd_sb_free(&title);
    double y_bottom = top + row * (double)(m->n_arms ? m->n_arms : 1);
    x_grid(out, x0, scale, axis_max, top - 6, y_bottom);
    if (!m->n_arms)
        ev_svg_text(out, x0 + 8, top + 16, "start", "fill=\"#555555\"", "no arms measured");
    for (size_t i = 0; i < m->n_arms; i++) {
        const ev_arm *a = &m->arms[i];
        const ev_stat *s = tg ? &a->tg : &a->pp;
        double cy = top + row * (double)i + row / 2;
        ev_svg_text(out, x0 - 8, cy + 4, "end", a->is_verdict ? "font-weight=\"bold\"" : NULL, a->label);
        int ok = !strcmp(a->status, "ok");
        if (!s->has) {
            lvd_sb why = {0};
            lvd_sb_adds(&why, ok ? "not measured" : !strcmp(a->status, "gpu_ignored") ? "GPU flags ignored" : a->status);
            ev_svg_text(out, x0 + 6, cy + 4, "start", "fill=\"#888888\" font-style=\"italic\"", lvd_sb_str(&why));
            lvd_sb_free(&why);
            continue;
        }
        /* excluded arms with data: hatched by opacity, never ranked */
        lvd_sb_adds(out, "<rect x=\"");
        ev_svg_num(out, x0);
        lvd_sb_adds(out, "\" y=\"");
        ev_svg_num(out, cy - 8);
        lvd_sb_adds(out, "\" width=\"");
        ev_svg_num(out, s->median * scale);
        lvd_sb_addf(out, "\" height=\"16\" fill=\"%s\"%s/>\n", backend_colour(a->backend),
                    ok ? "" : " fill-opacity=\"0.35\"");
        const char *wstyle = "stroke=\"#222222\" stroke-width=\"1.5\"";
        ev_svg_line(out, x0 + s->lo * scale, cy, x0 + s->hi * scale, cy, wstyle);
        ev_svg_line(out, x0 + s->lo * scale, cy - 5, x0 + s->lo * scale, cy + 5, wstyle);
        ev_svg_line(out, x0 + s->hi * scale, cy - 5, x0 + s->hi * scale, cy + 5, wstyle);
        lvd_sb v = {0};
        ev_fmt_ts(&v, s->median);
        if (!ok)
            lvd_sb_addf(&v, "  %s", !strcmp(a->status, "gpu_ignored") ? "GPU flags ignored (CPU speed)" : a->status);
        if (strcmp(s->test, test))
            lvd_sb_addf(&v, " (%s)", s->test);
        ev_svg_text(out, x0 + fmax(s->hi, s->median) * scale + 8, cy + 4, "start", NULL, lvd_sb_str(&v));
        lvd_sb_free(&v);
    }
    lvd_sb_adds(out, "</svg>\n");
}

/* The depth chart's frame: where the plot lies, its y scale and the legend. */
typedef struct hist_frame {
    double x0, x1, top, y_bottom, plot_h, axis_max, legend_row;
    size_t nd;
} hist_frame;

/* x of depth index d on the frame. */
static double depth_x(const hist_frame *f, size_t d)
{
    return f->nd == 1 ? (f->x0 + f->x1) / 2 : f->x0 + (f->x1 - f->x0) * (double)d / (double)(f->nd - 1);
}

/* Legend row `legend` below the plot: a colour swatch, label, then suffix. */
static void legend_row(lvd_sb *out, const hist_frame *f, size_t legend, const char *colour, const char *label,
                       const char *suffix)
{
    double ly = f->y_bottom + 40 + f->legend_row * (double)legend;
    lvd_sb_adds(out, "<rect x=\"");
    ev_svg_num(out, f->x0);
    lvd_sb_adds(out, "\" y=\"");
    ev_svg_num(out, ly - 9);
    lvd_sb_addf(out, "\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", colour);
    ev_svg_text_parts(out, f->x0 + 20, ly, "start", NULL, label, suffix);
}

/* --- throughput against context depth ------------------------------------ */

static double point_value(const ev_depth_point *p, int tg, int *has)
{
    *has = tg ? p->has_tg : p->has_pp;
    return tg ? p->tg : p->pp;
}

/* One leading arm's line over the depths, its dots and its legend row. */
static void depth_arm(lvd_sb *out, const ev_model *m, const ev_arm *a, int tg, const hist_frame *f, size_t legend)
{
    const char *colour = ev_svg_line_colour(legend);
    lvd_sb pts = {0};
    double last = 0;
    for (size_t k = 0, d = 0; k < a->n_depth; k++) {
        int has;
        double v = point_value(&a->depth[k], tg, &has);
        while (d < f->nd && m->depths[d] != a->depth[k].depth)
            d++;
        if (!has)
            continue;
        ev_svg_dot(out, &pts, depth_x(f, d), f->y_bottom - v / f->axis_max * f->plot_h, colour);
        last = v;
    }
    ev_svg_polyline(out, &pts, colour);
    lvd_sb_free(&pts);
    lvd_sb lbl = {0};
    lvd_sb_addf(&lbl, " (#%zu): ", a->rank);
    ev_fmt_ts(&lbl, last);
    lvd_sb_addf(&lbl, " at d%d", a->n_depth ? a->depth[a->n_depth - 1].depth : 0);
    legend_row(out, f, legend, colour, a->label, lvd_sb_str(&lbl));
    lvd_sb_free(&lbl);
}

void ev_svg_depth(const ev_model *m, int tg, lvd_sb *out)
{
    size_t shown = 0;
    double max = 0;
    for (size_t i = 0; i < m->n_arms; i++) {
        shown += m->arms[i].n_depth > 0;
        for (size_t k = 0; k < m->arms[i].n_depth; k++) {
            int has;
            double v = point_value(&m->arms[i].depth[k], tg, &has);
            max = has && v > max ? v : max;
        }
    }
    double step = nice_step(max);
    hist_frame f = {.x0 = 70, .x1 = 720, .top = 44, .plot_h = 220, .legend_row = 18, .nd = m->n_depths};
    f.axis_max = max > 0 ? ceil(max / step) * step : 1;
    f.y_bottom = f.top + f.plot_h;
    double h = f.y_bottom + 40 + f.legend_row * (double)(shown ? shown : 1) + 10;
    lvd_sb title = {0};
    const char *test = tg ? m->tg_test : m->pp_test;
    lvd_sb_addf(&title, "%.*s t/s against context depth (llama-bench -d), leading arms: %s",
                (int)strcspn(*test ? test : tg ? "tg" : "pp", "@"), *test ? test : tg ? "tg" : "pp", m->name);
    ev_svg_open(out, 760, h, lvd_sb_str(&title));
    ev_svg_title(out, lvd_sb_str(&title));
    lvd_sb_free(&title);
    for (double v = 0; v <= f.axis_max + step * 1e-9; v += step) {
        double y = f.y_bottom - v / f.axis_max * f.plot_h;
        ev_svg_line(out, f.x0, y, f.x1, y, "stroke=\"#e0e0e0\" stroke-width=\"1\"");
        lvd_sb lbl = {0};
        ev_svg_tick_label(&lbl, v, step);
        ev_svg_text(out, f.x0 - 6, y + 4, "end", "fill=\"#555555\"", lvd_sb_str(&lbl));
        lvd_sb_free(&lbl);
    }
    for (size_t k = 0; k < m->n_depths; k++) {
        char d[32];
        snprintf(d, sizeof d, "d%d", m->depths[k]);
        ev_svg_text(out, depth_x(&f, k), f.y_bottom + 16, "middle", "fill=\"#555555\"", d);
    }
    size_t legend = 0;
    for (size_t i = 0; i < m->n_arms; i++)
        if (m->arms[i].n_depth)
            depth_arm(out, m, &m->arms[i], tg, &f, legend++);
    lvd_sb_adds(out, "</svg>\n");
}
