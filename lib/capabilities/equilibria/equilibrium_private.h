/* The equilibrium solver's internals, shared by its drivers (equilibrium.c: static and
 * steady sliding, the certificate and classification, the public calls), its contact
 * problems (equilibrium_contact.c: the static problem on W, steady sliding's LCP by
 * Lemke) and its rigid-mode machinery (equilibrium_rigid.c: the rank probe of K, the
 * pseudo-inverse, the existence test's operators and the method of multipliers of
 * bodies held by their contacts). Private to those three files. */
#ifndef FCD_EQUILIBRIUM_PRIVATE_H
#define FCD_EQUILIBRIUM_PRIVATE_H

#include "capabilities.h"
#include "fcd/fcd_equilibrium.h"
#include "mechanism.h"

#define FCD_EQUILIBRIUM_MAGIC 0x66636571u /* "fceq" */

struct fcd_equilibrium {
  uint32_t magic;
  fcd_system *sys;
  fcd_contact_set *cs; /* may be NULL */
  fcd__factor *fac;
  fcd__fc_opts opts;
  fcd_real classify_tol;
  fcd__wcache W; /* m x m */
  fcd_real *u_ref; /* NULL: zero */
  int have;
  fcd_index have_nc;  /* contacts of the last solution (contacts are only ever added) */
  fcd_real *u, *r; /* last solution */
  int *set;
  fcd_real *sdir; /* (d - 1) per contact */
  fcd_real cert_tol;     /* FCD_PARAM_CERT_TOL */
  fcd_certificate cert;  /* of the last solve that succeeded */
  /* rigid modes of K on the free dofs: probed once per factorization */
  int rigid;             /* 1: K is semi-definite on the free dofs */
  fcd_index probe_facts; /* factorization count the probe was made for (-1: none) */
  uint64_t kfail_pat, kfail_val; /* the K (pattern, values) whose factorization failed */
  fcd_index void_dof; /* that K's dof with a zero diagonal no contact involves (-1: none) */
  fcd_real probe_rho;    /* smallest Rayleigh quotient x'Kx / x'Dx found */
  fcd__factor *rfac;     /* K + c D, D = diag K, when rigid */
  uint64_t rfac_pat, rfac_val;
  fcd_real *dreg;        /* c D on the free dofs */
  fcd_index nrig;        /* rigid modes found */
  fcd_real *R;           /* nf x nrig, orthonormal columns (Euclidean) */
  fcd_real *Wp;          /* H K^+ H^T, m x m */
  uint64_t wp_pat, wp_val, wp_csver; /* what Wp and R were built for */
  fcd__geometry *geo;    /* fcd_equilibrium_set_mesh's copy, or NULL */
  fcd_mechanism mech;    /* of the last solve (kind FCD_MECH_NONE unless it had none) */
  fcd_real *mech_motion; /* its motion, ndofs entries */
};

/* Rank decisions on K (free dofs), with D = diag K: a Rayleigh quotient x'Kx / x'Dx
 * below RIGID_TOL is a rigid mode (exact rigid motions give round-off, about 1e-15;
 * the softest elastic modes of slender models stay above about 1e-10). The semi-definite
 * problem is solved in the manner of FETI's coarse problem (docs/equilibria.md): u =
 * K^+ (f + H^T r) + R a with R the rigid modes, K^+ applied through the factor of
 * K + REG D with refinement, and the balance R^T (f + H^T r) = 0 enforced on the contact
 * problem by an augmented Lagrangian in the rigid amplitudes a. */
#define FCD__RIGID_TOL 1e-12
#define FCD__RIGID_REG 1e-10
/* The rigid-mode search's largest block. Bodies held by their contacts have 6 modes each
 * in 3D; a K with thousands is a model without stiffness (zeros stored for every entry),
 * whose search doubled its block up to the free dofs': at 20,000 dofs a 3.2 GB block and
 * some 1e13 flops, hours in a host before any answer. */
#define FCD__RIGID_MAX 512
#define FCD__AL_MAX 200
/* The method of multipliers raises its penalty tenfold after two steps that leave more
 * than half the unbalance, up to this factor over its start: a body that starts 100
 * above its support travels a gap 1e6 times its elastic displacements, which steps on
 * W+'s scale crossed at that scale per step (it was refused as "cannot hold the load"
 * past a gap of about 0.3). */
#define FCD__AL_RHO_MAX 1e12

static inline fcd_index fcd__eq_nct(const fcd_equilibrium *eq) {
  return eq->cs ? eq->cs->n : 0;
}
static inline int fcd__eq_cdim(const fcd_equilibrium *eq) { return eq->cs ? eq->cs->dim : 2; }

/* the work vectors of one solve (f, z, ... as equilibrium.c names them) */
typedef struct {
  fcd_real *f, *z, *vr, *ub, *tmp, *xf, *u, *r, *loc, *sdir;
  int *set;
} eq_work;

/* equilibrium.c */
/* f - K z + H^T r on the free dofs (r may be NULL: zero), tmp a full work vector */
fcd_status fcd__eq_rhs_free(fcd_equilibrium *eq, const fcd_real *f, const fcd_real *z,
                            const fcd_real *r, fcd_real *tmp, fcd_real *xf);
/* the certificate's bound: FCD_PARAM_CERT_TOL, and never below 10 x the solver's */
fcd_real fcd__eq_cert_tolerance(const fcd_equilibrium *eq);
/* the static contact problem u_loc = W r + q (q from w->loc), and steady sliding's LCP */
fcd_status fcd__eq_solve_static(fcd_equilibrium *eq, eq_work *w, fcd_real *Wd);
fcd_status fcd__eq_solve_steady(fcd_equilibrium *eq, eq_work *w, const fcd_real *Wd,
                                fcd_real *sl);

/* equilibrium_rigid.c */
/* K on the free dofs factored and its rank decided; a semi-definite K also gets the
 * regularised factor of its pseudo-inverse */
fcd_status fcd__eq_prepare(fcd_equilibrium *eq, const fcd__free_pattern *fp);
/* the semi-definite problem of a body held by its contacts (the existence test first) */
fcd_status fcd__eq_solve_rigid(fcd_equilibrium *eq, eq_work *w, fcd_equilibrium_kind kind,
                               fcd_real *sl);

#endif
