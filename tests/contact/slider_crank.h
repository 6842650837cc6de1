/* Siconos' FC2D_SliderCrankLagrangian00000 (siconos/siconos,
 * numerics/src/FrictionContact/test/data, Apache-2.0): two contacts of a slider-crank
 * mechanism, mu = 0.01, the two tangential rows of W alike (W of rank 3). W dense
 * row-major as the file gives it; q in fcd's convention (the file's negated). Shared by
 * tests/contact/test_fc_solvers.c and bench/small_contact. */
#ifndef FCD_TESTS_SLIDER_CRANK_H
#define FCD_TESTS_SLIDER_CRANK_H

static const double SLIDER_W[16] = {
    9.365610022253570150496671e+02,  -4.642665883420582986218506e+02,
    -9.152908496264951736520743e+02, -4.642665883420582986218506e+02,
    -4.642662921766745967033785e+02, 2.365081445699369169233250e+02,
    4.616596337492514976474922e+02,  2.365081445699369169233250e+02,
    -9.152908496264951736520743e+02, 4.616593375838677957290201e+02,
    9.365610022253570150496671e+02,  4.616593375838677957290201e+02,
    -4.642662921766745967033785e+02, 2.365081445699369169233250e+02,
    4.616596337492514976474922e+02,  2.365081445699369169233250e+02};
static const double SLIDER_Q[4] = {1.179087309965789476251530e+00,
                                   8.407368208001527065675873e+00,
                                   1.179087309965789476251530e+00,
                                   8.407368208001527065675873e+00};
static const double SLIDER_MU[2] = {0.01, 0.01};

#endif
