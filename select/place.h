/* place.h: the selection's fourth step (select.h): the launch line of the
 * decision (decide.h) through the one function that makes every launch line,
 * sel_choice_lines_build (choice.h): the parameters of the choice (the
 * verdict's arm as measured, else its device, else the CPU), the context
 * (--ctx, the profile's, the measured depth's; a measured ceiling applied,
 * ceiling.h), placement on the chosen device with its free memory and the
 * margin correction of the gathered allocation rows, the profile's flags;
 * then the device-visibility variables the chosen device needs. Explain
 * lines: the ceiling, the placement, a flag the engine's llama-server lacks,
 * a software device, and what the line warns of (a CUDA build without the
 * device's architecture, an engine older than the pin). Not for choosing
 * (decide.h) nor for printing (select.h, sel_result). */
#ifndef LVD_SEL_PLACE_H
#define LVD_SEL_PLACE_H

#include "common/util.h"
#include "select/choice.h"
#include "select/decide.h"
#include "select/explain.h"
#include "select/gather.h"
#include "select/select.h"

/* The launch line of decision d on the facts f for request rq into out
 * (free with sel_choice_lines_free, also after a failure), saying its lines
 * into x. Returns the exit code: LVD_EXIT_OK; LVD_EXIT_INPUT (err) for
 * parameters that make no line, a shape placement cannot use, or a context
 * above a measured ceiling; LVD_EXIT_FAIL for --ctx max without a valid
 * ceiling. */
int sel_place(const sel_facts *f, const sel_request *rq, const sel_decision *d, sel_choice_lines *out,
              sel_explain *x, lvd_err *err);

#endif
