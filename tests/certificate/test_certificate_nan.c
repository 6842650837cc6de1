/* A NaN anywhere in what a certificate measures makes it fail. The reductions used to
 * be fmax and fmin, which drop a NaN operand: a closed contact (zero gap, zero slip)
 * with a NaN normal reaction measured zero on every figure and passed. */
#include "fc_private.h"
#include "../fcdtest.h"

#include <math.h>

static int certify_one(int d, const double *r, const double *law) {
  fcd_certificate c;
  double mu = 0.5;
  fcd__certificate_init(&c, 1.0, 1.0);
  fcd__certify_contacts(&c, d, 1, &mu, law, r, NULL, NULL);
  return fcd__certificate_check(&c, 1e-8);
}

int main(void) {
  for (int d = 2; d <= 3; d++) {
    double law[3] = {0, 0, 0}, r[3] = {-1, 0, 0};
    CHECK(certify_one(d, r, law)); /* a sticking contact, pressed: passes */
    for (int k = 0; k < d; k++) {
      double rn[3] = {-1, 0, 0}, ln[3] = {0, 0, 0};
      rn[k] = NAN;
      CHECK(!certify_one(d, rn, law));
      ln[k] = NAN;
      CHECK(!certify_one(d, r, ln));
    }
  }
  return fcdt_finish("test_certificate_nan");
}
