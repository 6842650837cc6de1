/* The parts of `fcd demo` beyond the clamped beam (tools/demo.c), and the lattice run
 * that `fcd lattice` and the demo share (tools/cmd_lattice.c). */
#ifndef FCD_TOOLS_DEMO_H
#define FCD_TOOLS_DEMO_H

#include <fcd/fcd.h>

/* Steps @p lat to t_end by dt and writes DIR/history.csv and DIR/damage.png. */
int lattice_run(fcd_lattice *lat, const char *dir, double dt, double t_end);

/* The embedded examples of the demo, written under @p out; returns 0 when every part
 * ran and every picture was written, and counts the pictures in @p npng. */
int demo_examples(const char *out, int *npng);

#endif
