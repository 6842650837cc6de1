/* Every bad input of the foundation issue: a specific status, a message naming the
 * problem, and a system that still works (the previous good data is kept). */
#include <fcd/fcd.h>

#include "../fcdtest.h"

enum { N = 4 };
static const fcd_index R[3] = {0, 1, 2}, C[3] = {0, 1, 3};
static const double V[3] = {2, 3, 4};

/* The good data set at the start must survive every failed call. */
static void check_intact(fcd_system *sys) {
  double x[N] = {1, 1, 1, 1}, y[N];
  CHECK_ST(fcd_system_apply(sys, FCD_STIFFNESS, x, y), FCD_OK);
  CHECK(y[0] == 2 && y[1] == 3 && y[2] == 4 && y[3] == 4); /* (2,3) mirrored */
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

int main(void) {
  fcd_system *sys = (fcd_system *)0x1;
  /* creation */
  CHECK_ST(fcd_system_create(0, &sys), FCD_E_INVALID_ARG);
  CHECK(sys == NULL);
  CHECK_ST(fcd_system_create(-5, &sys), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_create(5, NULL), FCD_E_INVALID_ARG);
  /* NULL handles everywhere */
  fcd_system_destroy(NULL);
  CHECK(fcd_system_last_error(NULL) != NULL);
  CHECK(fcd_system_ndofs(NULL) == 0);
  CHECK_ST(fcd_system_set_matrix_coo(NULL, FCD_MASS, 3, R, C, V, 0), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_read_matrix_market(NULL, FCD_MASS, "x"), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_set_rayleigh(NULL, 0, 0), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_fix_dofs(NULL, 0, NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_set_load(NULL, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_check_spd(NULL, FCD_MASS), FCD_E_INVALID_ARG);
  CHECK(fcd_system_num_fixed(NULL) == -1);

  CHECK_ST(fcd_system_create(N, &sys), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 3, R, C, V, FCD_COO_UPPER), FCD_OK);
  check_intact(sys);

  /* NULL arrays */
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 3, NULL, C, V, 0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "row array is NULL");
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 3, R, C, NULL, 0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "value array is NULL");
  check_intact(sys);
  /* bad kind, bad flags, negative count */
  CHECK_ST(fcd_system_set_matrix_coo(sys, (fcd_matrix_kind)7, 3, R, C, V, 0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "matrix kind 7");
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 3, R, C, V, 8u), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "flags");
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, -1, R, C, V, 0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "negative");
  /* negative and out-of-range indices */
  const fcd_index rneg[2] = {0, -1}, rbig[2] = {0, N};
  const fcd_index c2[2] = {0, 1};
  const double v2[2] = {1, 1};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 2, rneg, c2, v2, 0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "(-1, 1) outside [0, 4)");
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 2, c2, rbig, v2, 0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "(1, 4) outside");
  check_intact(sys);
  /* NaN / Inf */
  const double vnan[2] = {1, NAN}, vinf[2] = {INFINITY, 1};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 2, c2, c2, vnan, 0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "not finite");
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 2, c2, c2, vinf, 0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "entry 0");
  /* a lower-triangle entry in upper data */
  const fcd_index rl[2] = {0, 2}, cl[2] = {0, 1};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 2, rl, cl, v2, FCD_COO_UPPER),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "below the diagonal");
  check_intact(sys);
  /* CSR defects */
  const fcd_index rp_bad[N + 1] = {0, 2, 1, 2, 2}, rp1[N + 1] = {1, 1, 1, 1, 1};
  const fcd_index rp[N + 1] = {0, 2, 2, 2, 2}, ci_uns[2] = {1, 0}, ci_oob[2] = {0, 9};
  CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp_bad, c2, v2, 0, FCD_COPY),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "decreases");
  CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp1, c2, v2, 0, FCD_COPY),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "row_ptr[0]");
  CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp, ci_uns, v2, 0, FCD_COPY),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "strictly increasing");
  CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp, ci_oob, v2, 0, FCD_BORROW),
           FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "out of range");
  CHECK_ST(fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, rp, c2, v2, 0, (fcd_ownership)5),
           FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_matrix_values_changed(sys, FCD_DAMPING), FCD_E_STATE);
  CHECK_MSG(sys, "never set");
  check_intact(sys);

  /* fixing out-of-range dofs: all or nothing */
  const fcd_index fx[3] = {1, 2, 17};
  CHECK_ST(fcd_system_fix_dofs(sys, 3, fx, NULL), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "dof 17");
  CHECK(fcd_system_num_fixed(sys) == 0);
  const fcd_index fneg[1] = {-1};
  CHECK_ST(fcd_system_fix_dofs(sys, 1, fneg, NULL), FCD_E_INVALID_ARG);
  const double fnan[1] = {NAN};
  CHECK_ST(fcd_system_fix_dofs(sys, 1, fx, fnan), FCD_E_INVALID_ARG);
  CHECK(fcd_system_num_fixed(sys) == 0);
  CHECK_ST(fcd_system_fix_dofs(sys, 2, NULL, NULL), FCD_E_INVALID_ARG);
  /* negative or non-finite Rayleigh coefficients */
  CHECK_ST(fcd_system_set_rayleigh(sys, -0.1, 0.0), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "alpha=-0.1");
  CHECK_ST(fcd_system_set_rayleigh(sys, 0.0, NAN), FCD_E_INVALID_ARG);
  /* load */
  const double fl[N] = {0, INFINITY, 0, 0};
  CHECK_ST(fcd_system_set_load(sys, fl), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "entry 1");
  double fo[N];
  CHECK_ST(fcd_system_eval_load(sys, NAN, fo), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_eval_load(sys, 0, NULL), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_apply(sys, FCD_STIFFNESS, NULL, fo), FCD_E_INVALID_ARG);
  check_intact(sys);

  /* files */
  char p[512];
  fcdt_tmpfile(p, sizeof p, "does-not-exist.mtx");
  remove(p);
  CHECK_ST(fcd_system_read_matrix_market(sys, FCD_STIFFNESS, p), FCD_E_IO);
  CHECK_MSG(sys, "does-not-exist.mtx");
  CHECK_ST(fcd_system_read_fixed(sys, p), FCD_E_IO);
  fcd_index nr;
  char eb[256] = "";
  CHECK_ST(fcd_matrix_market_size(p, &nr, &nr, &nr, eb, sizeof eb), FCD_E_IO);
  CHECK(strstr(eb, "cannot open") != NULL);
  fcdt_tmpfile(p, sizeof p, "bad.mtx");
  struct {
    const char *text;
    int status;
    const char *msg;
  } cases[] = {
      {"", FCD_E_FORMAT, "empty file"},
      {"hello\n", FCD_E_FORMAT, ":1: missing the '%%MatrixMarket' banner"},
      {"%%MatrixMarket matrix coordinate real\n", FCD_E_FORMAT, ":1: the banner needs"},
      {"%%MatrixMarket matrix coordinate pattern general\n4 4 1\n1 1\n", FCD_E_UNSUPPORTED,
       "field 'pattern'"},
      {"%%MatrixMarket matrix coordinate complex general\n4 4 1\n1 1 1 0\n", FCD_E_UNSUPPORTED,
       "field 'complex'"},
      {"%%MatrixMarket matrix array real general\n4 4\n1\n", FCD_E_UNSUPPORTED,
       "format 'array'"},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n4 4 1\n2 1 1\n", FCD_E_UNSUPPORTED,
       "symmetry 'skew-symmetric'"},
      {"%%MatrixMarket vector coordinate real general\n4 4 1\n2 1 1\n", FCD_E_UNSUPPORTED,
       "object 'vector'"},
      {"%%MatrixMarket matrix coordinate real general\n% c\n4 4\n", FCD_E_FORMAT,
       ":3: expected 'rows columns entries'"},
      {"%%MatrixMarket matrix coordinate real general\n4 4 2\n1 1 1\n2 2 x\n", FCD_E_FORMAT,
       ":4: expected 'row column value'"},
      {"%%MatrixMarket matrix coordinate real general\n4 4 2\n1 1 1\n2 2 1 7\n", FCD_E_FORMAT,
       ":4: expected"},
      {"%%MatrixMarket matrix coordinate real general\n4 4 2\n1 1 1\n5 1 1\n", FCD_E_FORMAT,
       ":4: index (5, 1) outside"},
      {"%%MatrixMarket matrix coordinate real general\n4 4 2\n1 1 1\n0 1 1\n", FCD_E_FORMAT,
       ":4: index (0, 1)"},
      {"%%MatrixMarket matrix coordinate real general\n4 4 3\n1 1 1\n2 2 1\n", FCD_E_FORMAT,
       "after 2 of 3 declared"},
      {"%%MatrixMarket matrix coordinate real general\n4 4 1\n1 1 1\n2 2 1\n", FCD_E_FORMAT,
       ":4: more entries than the 1 declared"},
      {"%%MatrixMarket matrix coordinate real general\n4 4 1\n1 1 nan\n", FCD_E_FORMAT,
       ":3: value is not finite"},
      {"%%MatrixMarket matrix coordinate real symmetric\n4 4 2\n2 1 1\n1 3 1\n", FCD_E_FORMAT,
       "both triangles"},
      {"%%MatrixMarket matrix coordinate real general\n5 5 1\n1 1 1\n", FCD_E_INVALID_ARG,
       "is 5 x 5 but the system has 4 dofs"},
      {"%%MatrixMarket matrix coordinate real general\n4 3 1\n1 1 1\n", FCD_E_INVALID_ARG,
       "is 4 x 3"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    write_file(p, cases[k].text);
    int st = fcd_system_read_matrix_market(sys, FCD_STIFFNESS, p);
    CHECK_ST(st, cases[k].status);
    if (st != cases[k].status) fprintf(stderr, "  case %zu\n", k);
    CHECK_MSG(sys, cases[k].msg);
    check_intact(sys);
  }
  fcdt_tmpfile(p, sizeof p, "bad_fixed.txt");
  write_file(p, "0\n1 0.5\n2 abc\n");
  CHECK_ST(fcd_system_read_fixed(sys, p), FCD_E_FORMAT);
  CHECK_MSG(sys, ":3: expected 'dof [value]'");
  write_file(p, "0\n99\n");
  CHECK_ST(fcd_system_read_fixed(sys, p), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, ":2: dof 99 outside");
  write_file(p, "x\n");
  CHECK_ST(fcd_system_read_fixed(sys, p), FCD_E_FORMAT);
  CHECK(fcd_system_num_fixed(sys) == 0); /* all or nothing */

  /* a non-SPD mass, found when factoring; the system stays usable */
  const fcd_index mr[4] = {0, 1, 2, 3}, mc[4] = {0, 1, 2, 3};
  const double mbad[4] = {1, 1, -1, 1}, mgood[4] = {1, 1, 1, 1};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 4, mr, mc, mbad, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_check_spd(sys, FCD_MASS), FCD_E_NOT_SPD);
  CHECK_MSG(sys, "mass matrix restricted to the free dofs is not SPD");
  CHECK_MSG(sys, "at dof 2");
  const fcd_index fix2 = 2;
  CHECK_ST(fcd_system_fix_dofs(sys, 1, &fix2, NULL), FCD_OK); /* now SPD on the free dofs */
  CHECK_ST(fcd_system_check_spd(sys, FCD_MASS), FCD_OK);
  CHECK_ST(fcd_system_clear_fixed(sys), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_MASS, 4, mr, mc, mgood, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_check_spd(sys, FCD_MASS), FCD_OK);
  CHECK_ST(fcd_system_check_spd(sys, FCD_DAMPING), FCD_E_STATE);
  /* the check is on C itself: Rayleigh damping (alpha M, here large) must not mask an
   * indefinite C, nor spoil a definite one */
  const double cneg[4] = {1, -1, 1, 1}, cpos[4] = {1, 2, 3, 4};
  CHECK_ST(fcd_system_set_rayleigh(sys, 10.0, 0.0), FCD_OK);
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_DAMPING, 4, mr, mc, cneg, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_check_spd(sys, FCD_DAMPING), FCD_E_NOT_SPD);
  CHECK_MSG(sys, "damping matrix restricted to the free dofs is not SPD");
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_DAMPING, 4, mr, mc, cpos, FCD_COO_UPPER), FCD_OK);
  CHECK_ST(fcd_system_check_spd(sys, FCD_DAMPING), FCD_OK);
  CHECK_ST(fcd_system_set_rayleigh(sys, 0.0, 0.0), FCD_OK);
  /* an asymmetric matrix given in full storage cannot be checked as SPD */
  const fcd_index ar[2] = {0, 1}, ac[2] = {1, 0};
  const double av[2] = {1, 2};
  CHECK_ST(fcd_system_set_matrix_coo(sys, FCD_DAMPING, 2, ar, ac, av, 0), FCD_OK);
  CHECK_ST(fcd_system_check_spd(sys, FCD_DAMPING), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "not symmetric");
  /* modal analysis requests */
  double w2[8];
  fcd_index nc;
  CHECK_ST(fcd_system_natural_modes(sys, 0, w2, NULL, &nc), FCD_E_INVALID_ARG);
  CHECK_ST(fcd_system_natural_modes(sys, 5, w2, NULL, &nc), FCD_E_INVALID_ARG);
  CHECK_MSG(sys, "nev = 5");
  CHECK_ST(fcd_system_natural_modes(sys, 1, NULL, NULL, &nc), FCD_E_INVALID_ARG);
  check_intact(sys);
  fcd_system_destroy(sys);
  fcd_finalize();
  return fcdt_finish("test_badinput");
}
