/* The brake at industrial sizes (bench/brake_pads.h, issue 87): what building it and
 * reducing it cost as it grows, one refinement a run (a process each, so that the peak
 * resident memory is this size's own).
 *
 *   brake_scale [--refine R] [--modes M] [--no-reduce]
 *
 * Prints the model (dofs, contact nodes, the dofs a reduction keeps: both nodes of each
 * pair and the pads' pushed backs), the seconds and the peak resident memory of building
 * it, then of fcd_reduction_create with M fixed-interface modes (default 300), or the
 * reduction's refusal when its dense arrays exceed the machine's memory, with the
 * figures of its message. */
#include "args.h"
#include "brake_pads.h"

#include <sys/resource.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double peak_gib(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_maxrss / (1024.0 * 1024.0);
}

int main(int argc, char **argv) {
  int r = 1, modes = 300, reduce = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--refine") && i + 1 < argc)
      r = bench_int(argv[0], "--refine", argv[++i], 1, 8);
    else if (!strcmp(argv[i], "--modes") && i + 1 < argc)
      modes = bench_int(argv[0], "--modes", argv[++i], 0, 100000);
    else if (!strcmp(argv[i], "--no-reduce"))
      reduce = 0;
    else {
      fprintf(stderr, "usage: %s [--refine R] [--modes M] [--no-reduce]\n", argv[0]);
      return 2;
    }
  }
  double t0 = now();
  brake b;
  if (brake_pads_build(&b, r, 0.3) != FCD_OK) return 1;
  double tb = now() - t0;
  printf("refine=%d dofs=%lld contacts=%lld elements=%d build_seconds=%.2f build_peak_gib=%.2f\n",
         r, (long long)fcd_system_ndofs(b.sys), (long long)fcd_contact_set_size(b.cs), b.m.ne,
         tb, peak_gib());
  fflush(stdout);
  int rc = 0;
  if (reduce) {
    fcd_reduction *red = NULL;
    t0 = now();
    fcd_status st = fcd_reduction_create(b.sys, b.cs, modes, &red);
    double tr = now() - t0;
    if (st == FCD_OK) {
      fcd_index nk = 0, nm = 0;
      fcd_reduction_get_info(red, &nk, &nm, NULL, NULL);
      printf("reduction modes=%d kept=%lld seconds=%.1f peak_gib=%.2f\n", modes, (long long)nk,
             tr, peak_gib());
    } else {
      printf("reduction modes=%d refused after %.2f s (%s): %s\n", modes, tr,
             fcd_status_str(st), fcd_system_last_error(b.sys));
      rc = st == FCD_E_NOMEM ? 0 : 1;
    }
    fcd_reduction_destroy(red);
  }
  brake_free(&b);
  return rc;
}
