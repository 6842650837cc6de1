/* The reduced model's handle, shared by reduction.c (the Craig-Bampton basis and the
 * handle's functions) and reduction_modal.c (its modal coordinates). */
#ifndef FCD_LIB_REDUCTION_PRIVATE_H
#define FCD_LIB_REDUCTION_PRIVATE_H

#include "capabilities.h"

/* Modal coordinates (fcd_reduction_create_modal): the Craig-Bampton coordinates y (nr)
 * split into the moving prescribed dofs P (np, constant values up) and the others F
 * (nf); y_P = up s, y_F = Psi q, with Psi the modes of (K_FF, M_FF) (nf x nf,
 * column-major, M_FF-normalized). The reduced system's dofs are z = [s; q] (s, a dof
 * prescribed to 1, only when np > 0: shape = 1), nz = shape + nf of them. */
typedef struct {
  fcd_index nf, np, shape, nz;
  fcd_index *fpos; /* the F coordinates' places in y, nf */
  fcd_index *ppos; /* the P coordinates' places in y, np */
  fcd_index *fof;  /* a place in y -> its position in F, or -1 (nr) */
  fcd_real *up;    /* the prescribed values, np */
  fcd_real *Psi;
  fcd_real *g; /* the load's scratch: T' f, then its F part (2 nr) */
} fcd__red_modal;

#define FCD_REDUCTION_MAGIC 0x66637264u /* "fcrd" */

/* a reduction by components on a distributed system (reduction_parts.c) */
typedef struct fcd__red_parts fcd__red_parts;

struct fcd_reduction {
  uint32_t magic;
  fcd_system *full;
  fcd__cb cb;
  fcd_system *sys;     /* the reduced system */
  fcd_contact_set *cs; /* the contacts on it, or NULL */
  fcd_real *fbuf;      /* the full load, for the projected load's callback */
  fcd__red_modal *md;  /* modal coordinates, or NULL (the Craig-Bampton ones) */
  /* the relative interface (reduction_relative.c), or NULL: partner[d] the B dof of a
   * converted pair's A dof d, -1 elsewhere; the full system and its contacts in y, on
   * which cb was built */
  fcd_index *partner;
  fcd_system *ysys;
  fcd_contact_set *ycs;
  /* interface coarsening (fcd_reduction_options::tied), dof by dof: y_(tdof[k]) =
   * sum tw[e] y_(tsrc[e]) over e in tptr[k] .. tptr[k+1] - 1; ntd tied dofs, held at zero
   * in ysys (x = the coordinates without them: y = Q x); tie_of[d] = k, or -1 (n) */
  fcd_index ntd;
  fcd_index *tdof, *tptr, *tsrc, *tie_of;
  fcd_real *tw;
  /* on a distributed system: this rank's component (cb then holds the assembled reduced
   * operators, the kept dofs and omega^2 only: no basis), or NULL */
  fcd__red_parts *parts;
};

/* Every contact of cs into out (an empty set on another system): dof d becoming place[d]
 * (place NULL: d itself), a pair c with how[c] == FCD__RED_AS_NODE becoming its A node
 * against B's frame, one with FCD__RED_LEFT_OUT left out (how NULL: every contact as it
 * is); the sliding velocities, mortar marks and restitution too. FCD_E_NOMEM, or the
 * contact set's status (its message on out's system). */
enum { FCD__RED_AS_IS = 0, FCD__RED_AS_NODE = 1, FCD__RED_LEFT_OUT = 2 };
fcd_status fcd__red_copy_contacts(const fcd_contact_set *cs, const fcd_index *place,
                                  const unsigned char *how, fcd_contact_set *out);

/* The basis as an operator (reduction_basis.c), stored or factored alike. X (n x nj) =
 * the constraint modes j0 .. j0 + nj - 1; X = T_b V for V (nb x nj); out ((nb - i0) x nj)
 * = rows i0.. of T_b' Y for Y (n x nj); *row: T_b's row at the interior dof d (nb; factored: cached in
 * the handle, valid until the next call); x = T xr (nr -> n), g = T' f (n -> nr).
 * FCD_E_NOMEM, FCD_E_UNSUPPORTED (BLAS' ints) or the factor's status. */
typedef struct fcd__cb_psi fcd__cb_psi;
fcd_status fcd__cb_psi_create(const fcd_system *sys, const fcd__cb *cb, fcd_system *ci,
                              fcd__factor *f, fcd__cb_psi **out);
void fcd__cb_psi_destroy(fcd__cb_psi *p);
double fcd__cb_psi_bytes(const fcd__cb_psi *p);
/* Keeps W = L^-1 P (-K_ib) when its bytes (an upper bound, *bytes; -1 when it cannot be
 * kept) are at most max_bytes: T_b and T_b' then take half solves. */
fcd_status fcd__cb_psi_forward(fcd__cb_psi *p, double max_bytes, double *bytes);
/* lets W go (whole solves again) */
void fcd__cb_psi_forget(fcd__cb_psi *p);
/* X (n x nj) = T_b's columns j0 .. j0 + nj - 1; work (NULL or ni x nj numbers) the
 * factored basis' solves' */
fcd_status fcd__cb_tb_unit(const fcd__cb *cb, fcd_index j0, fcd_index nj, fcd_real *X,
                           fcd_real *work);
fcd_status fcd__cb_tb(const fcd__cb *cb, fcd_index nj, const fcd_real *V, fcd_real *X);
/* T_b' Y's rows from i0 (nb - i0 x nj); _consume overwrites Y, its memory the solves' work
 * (a block's third n x nj array at a million dofs: 0.5 GB) */
fcd_status fcd__cb_tbt(const fcd__cb *cb, fcd_index i0, fcd_index nj, const fcd_real *Y,
                       fcd_real *out);
fcd_status fcd__cb_tbt_consume(const fcd__cb *cb, fcd_index i0, fcd_index nj, fcd_real *Y,
                               fcd_real *out);
fcd_status fcd__cb_row(const fcd__cb *cb, fcd_index d, const fcd_real **row);
fcd_status fcd__cb_apply(const fcd__cb *cb, const fcd_real *xr, fcd_real *x);
fcd_status fcd__cb_project_vec(const fcd__cb *cb, const fcd_real *f, fcd_real *g);

/* the relative interface (relative nonzero), its ties and the moving prescribed dofs
 * joined (opt's tie fields and prescribed_shape; opt NULL: none) */
fcd_status fcd__rel_build(fcd_reduction *r, fcd_contact_set *cs,
                          const fcd_reduction_options *opt, int relative);
/* u = P Q x, x = (P Q)^+ u (the tied dofs dropped) and f_x = Q' P' f, in place on n
 * vectors; nothing without a relative interface */
void fcd__rel_to_u(const fcd_reduction *r, fcd_real *x);
void fcd__rel_to_y(const fcd_reduction *r, fcd_real *x);
void fcd__rel_transpose(const fcd_reduction *r, fcd_real *f);

/* The kept dofs of sys and cs into cb->bdofs, cb->nb (reduction.c) */
fcd_status fcd__cb_kept_dofs(fcd_system *sys, fcd_contact_set *cs, fcd__cb *cb);
/* fcd__cb_build with the kept dofs given (nkept, ascending), no inertia vectors */
fcd_status fcd__cb_build_kept(fcd_system *sys, fcd_index nkept, const fcd_index *kept,
                              fcd_index m, int storage, double mem_limit, fcd__cb *cb);

/* reduction_parts.c: a distributed system's reduction by components, each rank's rows
 * one; collective, every rank failing alike. Begin, with r->cb's kept dofs listed: this
 * rank's component (r->parts) as a serial system *loc (NULL when the rank has none), its
 * kept dofs (*nkl, ascending, *kl the caller's to free) and the modes to make there (*ml);
 * the caller builds fcd__parts_local_cb's basis on it (status st), then finish chooses
 * the lowest nmodes of all and sums the reduced operators into r->cb. Expand
 * (Craig-Bampton coordinates) and restrict are collective too. */
fcd_status fcd__parts_begin(fcd_reduction *r, fcd_index nmodes, fcd_system **loc,
                            fcd_index *nkl, fcd_index **kl, fcd_index *ml);
fcd_status fcd__parts_finish(fcd_reduction *r, fcd_index nmodes, fcd_status st);
/* the band of r->cb made on rank 0 and given to every rank */
fcd_status fcd__parts_band(fcd_reduction *r, const fcd_contact_set *cs, fcd_real cut,
                           fcd_real xi);
fcd_status fcd__parts_expand(const fcd_reduction *r, const fcd_real *xr, fcd_real *x);
fcd_status fcd__parts_restrict(const fcd_reduction *r, const fcd_real *x, fcd_real *xr);
/* this rank's basis (its owner clears it: fcd__cb_clear, before fcd__parts_free) */
fcd__cb *fcd__parts_local_cb(fcd__red_parts *p);
void fcd__parts_free(fcd__red_parts *p);

/* reduction_modal.c. Prepare: refuses a prescribed function, lists P and F. */
fcd_status fcd__modal_prepare(fcd_reduction *r);
/* the reduced system's matrices (Rayleigh coefficients copied) and s's prescription */
fcd_status fcd__modal_system(fcd_reduction *r);
/* r->cs: the full set's contacts by their modal rows */
fcd_status fcd__modal_contacts(fcd_reduction *r, fcd_contact_set *cs);
/* the modal load z' from the Craig-Bampton one g (nr; md->g may be g); 0 on success */
int fcd__modal_load(const fcd_reduction *r, const fcd_real *g, fcd_real *fz);
/* y = S z (nr from nz; work: nf) and z from y (the modes' M-projection, nz from nr) */
void fcd__modal_to_cb(const fcd_reduction *r, const fcd_real *z, fcd_real *y, fcd_real *work);
fcd_status fcd__modal_from_cb(const fcd_reduction *r, const fcd_real *y, fcd_real *z);
/* y[p] of y = S z, in O(nz) */
fcd_real fcd__modal_entry(const fcd_reduction *r, fcd_index p, const fcd_real *z);
void fcd__modal_free(fcd__red_modal *md);

#endif
