/* energy.h: energy on the evidence page: per arm and test the
 * joules per token and tokens per joule with 95 % CIs (stats/energy.h over
 * the arm's kept samples with measured energy), the J/token columns of the
 * arms table, the tokens-per-joule chart beside the t/s chart
 * (STEM-SHA12-tg-tpj.svg) and the candidate's energy delta against the
 * pinned build in the pin section. A model with no measured energy shows
 * none of it. Pure, as the rest of the page. */
#ifndef LVD_EV_ENERGY_H
#define LVD_EV_ENERGY_H

#include "evidence/model.h"
#include "select/pin.h"
#include "stats/energy.h"

/* st from the series' tokens-per-joule samples (s may be NULL). */
void ev_energy_fill(stats_energy_stat *st, const sel_series *s, const stats_rule *rule);
/* 1 when an arm of m has tg or pp energy figures. */
int ev_energy_any(const ev_model *m);
/* The arms table's extra header cells and separators (nothing without energy). */
void ev_energy_header(lvd_sb *sb, const ev_model *m);
void ev_energy_separator(lvd_sb *sb, const ev_model *m);
/* Arm a's extra cells: " | pp J/token [CI] | tg J/token [CI]". */
void ev_energy_cells(lvd_sb *sb, const ev_model *m, const ev_arm *a);
/* The tg tokens-per-joule bar chart (ev_svg_bars with tokens per joule). */
void ev_svg_tpj(const ev_model *m, lvd_sb *out);
/* The pin table's energy cell of row r: "+12.3 % tokens/J" or "–". */
void ev_energy_pin_cell(lvd_sb *sb, const sel_pin_row *r);

#endif
