/* Bodies held by their contacts: the existence of an equilibrium on the rigid resultant
 * and the mechanism when there is none (mechanism.h).
 *
 * With R the rigid modes of K on the free dofs, every equilibrium satisfies
 * R^T (b0 + H^T r) = 0, i.e. G r = e with G = R^T H^T and e = -R^T b0, with each contact's
 * reaction in its admissible set C_c. When no r in C = prod C_c gives G r = e, there is
 * no equilibrium whatever the elastic part does, and Farkas' lemma gives the reason: a
 * v with v . e > 0 and v . G r <= 0 on C. The rigid motion m = -R v is then a mechanism:
 * the load does positive work along it (f . m = v . e), and at every contact its local
 * motion w = H m lies in the dual of -C, w_N <= -mu |w_T| (u_N grows towards the
 * obstacle): it opens the contacts it moves, or slides them while opening at least mu
 * times the slip (the associated motion; Coulomb's own slides at w_N = 0, beyond reach of
 * any reaction in the cone all the same).
 *
 * The test is a non-negative least squares on the cone generators, min |G Gamma l - e|
 * over l >= 0 (Lawson and Hanson's active-set method, finite): its residual is zero when
 * e is reachable and is otherwise such a v. Only that small problem (k rigid modes, a few
 * generators per contact) is solved; no elastic solve is involved. */
#include "mechanism.h"

#include "capabilities.h"

#include <math.h>
#include <string.h>

/* ---- non-negative least squares -------------------------------------------------- */

/* z = argmin |A_P z - b| over the columns P (np of them) by Householder QR of the k x np
 * block in Q (scratch, k np) with w (k) scratch; 0, or 1 when the block is rank deficient
 * (a column within 1e-12 of the span of those before it). */
static int ls_solve(fcd_index k, const fcd_real *A, const fcd_index *P, fcd_index np,
                    const fcd_real *b, fcd_real *z, fcd_real *Q, fcd_real *w) {
  if (np > k) return 1;
  for (fcd_index j = 0; j < np; j++) memcpy(Q + j * k, A + P[j] * k, (size_t)k * sizeof *Q);
  memcpy(w, b, (size_t)k * sizeof *w);
  for (fcd_index j = 0; j < np; j++) {
    fcd_real *qj = Q + j * k, nrm = 0, cn = 0;
    for (fcd_index i = 0; i < k; i++) cn += A[P[j] * k + i] * A[P[j] * k + i];
    for (fcd_index i = j; i < k; i++) nrm += qj[i] * qj[i];
    nrm = sqrt(nrm);
    if (!(nrm > 1e-12 * sqrt(cn))) return 1;
    fcd_real alpha = qj[j] > 0 ? -nrm : nrm;
    /* v = x - alpha e_j stored in qj[j..], the diagonal kept in z for the back solve */
    qj[j] -= alpha;
    fcd_real vv = 0;
    for (fcd_index i = j; i < k; i++) vv += qj[i] * qj[i];
    for (fcd_index c = j + 1; c < np; c++) {
      fcd_real *qc = Q + c * k, s = 0;
      for (fcd_index i = j; i < k; i++) s += qj[i] * qc[i];
      s = 2 * s / vv;
      for (fcd_index i = j; i < k; i++) qc[i] -= s * qj[i];
    }
    fcd_real s = 0;
    for (fcd_index i = j; i < k; i++) s += qj[i] * w[i];
    s = 2 * s / vv;
    for (fcd_index i = j; i < k; i++) w[i] -= s * qj[i];
    z[j] = alpha; /* R_jj, for now */
  }
  /* back substitution with R: R_jj in z[j], R_jc (c > j) in Q[c k + j] */
  for (fcd_index j = np - 1; j >= 0; j--) {
    fcd_real s = w[j];
    for (fcd_index c = j + 1; c < np; c++) s -= Q[c * k + j] * z[c];
    z[j] = s / z[j];
  }
  return 0;
}

fcd_index fcd__nnls(fcd_index k, fcd_index p, const fcd_real *A, const fcd_real *b,
                    fcd_real *x, fcd_real *res) {
  fcd_index *P = fcd__malloc_array((size_t)k + 1, sizeof *P);
  unsigned char *in = fcd__calloc((size_t)p + 1, 1), *banned = fcd__calloc((size_t)p + 1, 1);
  fcd_real *z = fcd__malloc_array((size_t)k + 1, sizeof *z);
  fcd_real *Q = fcd__malloc_array((size_t)(k * k) + 1, sizeof *Q);
  fcd_real *wk = fcd__malloc_array((size_t)k + 1, sizeof *wk);
  fcd_index it = 0, np = 0;
  if (!P || !in || !banned || !z || !Q || !wk) {
    it = -1;
    goto done;
  }
  for (fcd_index j = 0; j < p; j++) x[j] = 0;
  memcpy(res, b, (size_t)k * sizeof *res);
  fcd_real bn = 0;
  for (fcd_index i = 0; i < k; i++) bn = fmax(bn, fabs(b[i]));
  const fcd_index maxit = 3 * p + 30;
  for (; it < maxit; it++) {
    /* the column most aligned with the residual (columns have unit norm) */
    fcd_index t = -1;
    fcd_real best = 1e-13 * bn;
    for (fcd_index j = 0; j < p; j++) {
      if (in[j] || banned[j]) continue;
      fcd_real s = 0;
      for (fcd_index i = 0; i < k; i++) s += A[j * k + i] * res[i];
      if (s > best) {
        best = s;
        t = j;
      }
    }
    if (t < 0 || np >= k) break;
    P[np++] = t;
    in[t] = 1;
    for (;;) {
      if (ls_solve(k, A, P, np, b, z, Q, wk)) {
        /* t lies in the span of the others: leave it out for good */
        in[P[--np]] = 0;
        banned[t] = 1;
        for (fcd_index j = 0; j < np; j++) z[j] = x[P[j]];
        break;
      }
      fcd_real alpha = INFINITY;
      for (fcd_index j = 0; j < np; j++)
        if (z[j] <= 0) {
          fcd_real xj = x[P[j]], den = xj - z[j];
          fcd_real a = den > 0 ? xj / den : 0;
          alpha = fmin(alpha, a);
        }
      if (alpha == INFINITY) break;
      /* step towards z until the first coefficient reaches zero, which leaves P */
      for (fcd_index j = 0; j < np; j++) x[P[j]] += alpha * (z[j] - x[P[j]]);
      fcd_index q = 0;
      for (fcd_index j = 0; j < np; j++) {
        if (x[P[j]] <= 1e-15 * fabs(z[j]) || z[j] <= 0) {
          if (x[P[j]] <= 0 || z[j] <= 0) {
            x[P[j]] = 0;
            in[P[j]] = 0;
            continue;
          }
        }
        P[q++] = P[j];
      }
      if (q == np) { /* round-off kept every coefficient: drop the smallest */
        fcd_index at = 0;
        for (fcd_index j = 1; j < np; j++)
          if (x[P[j]] < x[P[at]]) at = j;
        x[P[at]] = 0;
        in[P[at]] = 0;
        P[at] = P[--q];
      }
      np = q;
      if (np == 0) break;
    }
    for (fcd_index j = 0; j < np; j++) x[P[j]] = z[j] > 0 ? z[j] : 0;
    memcpy(res, b, (size_t)k * sizeof *res);
    for (fcd_index j = 0; j < np; j++)
      for (fcd_index i = 0; i < k; i++) res[i] -= A[P[j] * k + i] * x[P[j]];
  }
done:
  fcd__free(P);
  fcd__free(in);
  fcd__free(banned);
  fcd__free(z);
  fcd__free(Q);
  fcd__free(wk);
  return it;
}

/* ---- the existence test ------------------------------------------------------------- */

enum { PYRAMID = 16 };
static const fcd_real PI = 3.14159265358979323846;

/* The generators of contact c's admissible reactions, unit vectors in its local frame
 * (d entries each); returns how many. */
static int generators(const fcd__rigid_problem *p, fcd_index c, fcd_real *gen) {
  int d = p->d;
  fcd_real mu = p->mu[c];
  if (p->slip) {
    fcd_real nn = 1;
    gen[0] = -1;
    for (int k = 1; k < d; k++) {
      gen[k] = -mu * p->slip[c * (d - 1) + k - 1];
      nn += gen[k] * gen[k];
    }
    for (int k = 0; k < d; k++) gen[k] /= sqrt(nn);
    return 1;
  }
  /* the normal first: inside the cone, it adds nothing to it, but a large mu makes the
   * edges nearly opposite (mu = 1e20: (-1e-20, +-1)), and the normal reaction that
   * perfect stick needs would be their difference, lost to round-off */
  for (int k = 0; k < d; k++) gen[k] = k == 0 ? -1 : 0;
  if (!(mu > 0)) return 1;
  if (d == 2) {
    fcd_real s = 1 / sqrt(1 + mu * mu);
    gen[2] = -s;
    gen[3] = mu * s;
    gen[4] = -s;
    gen[5] = -mu * s;
    return 3;
  }
  /* the pyramid whose faces touch the cone: its edges reach mu / cos(pi / PYRAMID) */
  fcd_real me = mu / cos(PI / PYRAMID), s = 1 / sqrt(1 + me * me);
  for (int j = 0; j < PYRAMID; j++) {
    fcd_real a = 2 * PI * j / PYRAMID;
    gen[3 * j + 3] = -s;
    gen[3 * j + 4] = me * s * cos(a);
    gen[3 * j + 5] = me * s * sin(a);
  }
  return PYRAMID + 1;
}

/* Gross slip: Farkas' motion is the associated one, which lifts every sliding contact by
 * mu times its slip; the body itself slides. The rigid motion that slides those contacts
 * as Farkas' does with no normal motion at any of them, when the rigid modes hold one
 * (least squares; exact for a body on a flat support) that opens or slides every other
 * contact it moves and along which the load still works, replaces it in motion (nf,
 * largest entry 1): that is the motion to name. */
static void slide_motion(const fcd__rigid_problem *p, const fcd_real *w, fcd_real wmax,
                         fcd_real *motion) {
  int d = p->d;
  fcd_index k = p->k, nc = p->nc, m = nc * d, ns = 0;
  const fcd_real eps = 1e-6 * wmax;
  for (fcd_index c = 0; c < nc; c++)
    if (sqrt(w[c * d] * w[c * d] + fcd__tnorm(d, w + c * d) * fcd__tnorm(d, w + c * d)) > eps)
      ns++;
  fcd_index rows = ns * d;
  if (rows < k) return;
  fcd_real *A = fcd__malloc_array((size_t)(rows * k) + 1, sizeof *A);
  fcd_real *b = fcd__malloc_array((size_t)rows + 1, sizeof *b);
  fcd_real *Q = fcd__malloc_array((size_t)(rows * k) + 1, sizeof *Q);
  fcd_real *t = fcd__malloc_array((size_t)rows + 1, sizeof *t);
  fcd_real *v = fcd__malloc_array((size_t)k + 1, sizeof *v);
  fcd_real *wm = fcd__malloc_array((size_t)m + 1, sizeof *wm);
  fcd_index *P = fcd__malloc_array((size_t)k + 1, sizeof *P);
  fcd_real *mo = fcd__malloc_array((size_t)p->nf + 1, sizeof *mo);
  if (!A || !b || !Q || !t || !v || !wm || !P || !mo) goto done;
  /* the moving contacts' rows of -G^T (local motion per unit v), targets: no normal
   * motion, Farkas' tangential motion */
  fcd_index r = 0;
  for (fcd_index c = 0; c < nc; c++) {
    const fcd_real *wc = w + c * d;
    if (!(sqrt(wc[0] * wc[0] + fcd__tnorm(d, wc) * fcd__tnorm(d, wc)) > eps)) continue;
    for (int a = 0; a < d; a++, r++) {
      for (fcd_index l = 0; l < k; l++) A[l * rows + r] = -p->G[l * m + c * d + a];
      b[r] = a == 0 ? 0 : wc[a];
    }
  }
  for (fcd_index l = 0; l < k; l++) P[l] = l;
  if (ls_solve(rows, A, P, k, b, v, Q, t)) goto done;
  /* admissible: every contact it moves opens or slides (w_N <= eps), and the load works
   * along it (steady sliding: friction drags the body, whatever the load does) */
  fcd_real work = 0, mmax = 0;
  for (fcd_index l = 0; l < k; l++) work += v[l] * p->e[l];
  if (!(work > 0) && !p->slip) goto done;
  for (fcd_index i = 0; i < m; i++) {
    fcd_real s = 0;
    for (fcd_index l = 0; l < k; l++) s -= p->G[l * m + i] * v[l];
    wm[i] = s;
  }
  for (fcd_index c = 0; c < nc; c++)
    if (wm[c * d] > eps) goto done;
  for (fcd_index q = 0; q < p->nf; q++) {
    fcd_real s = 0;
    for (fcd_index l = 0; l < k; l++) s -= p->R[l * p->nf + q] * v[l];
    mo[q] = s;
    mmax = fmax(mmax, fabs(s));
  }
  if (!(mmax > 0)) goto done;
  for (fcd_index q = 0; q < p->nf; q++) motion[q] = mo[q] / mmax;
done:
  fcd__free(A);
  fcd__free(b);
  fcd__free(Q);
  fcd__free(t);
  fcd__free(v);
  fcd__free(wm);
  fcd__free(P);
  fcd__free(mo);
}

/* The generators of every contact's admissible reactions as the columns of A (k each,
 * normalised; G of a generator), owner[j] the contact of column j; halfspace: the
 * reactions of infinite friction, r_N <= 0 with r_T free. Returns the column count. */
static fcd_index columns(const fcd__rigid_problem *p, int halfspace, fcd_real *A,
                         fcd_index *owner) {
  int d = p->d;
  fcd_index k = p->k, m = p->nc * d, j = 0;
  fcd_real gen[3 * (PYRAMID + 1)];
  for (fcd_index c = 0; c < p->nc; c++) {
    int ngc;
    if (halfspace) {
      memset(gen, 0, sizeof gen);
      gen[0] = -1;
      for (int t = 1; t < d; t++) {
        gen[(2 * t - 1) * d + t] = 1;
        gen[2 * t * d + t] = -1;
      }
      ngc = 2 * d - 1;
    } else {
      ngc = generators(p, c, gen);
    }
    for (int q = 0; q < ngc; q++, j++) {
      fcd_real nn = 0;
      owner[j] = c;
      for (fcd_index l = 0; l < k; l++) {
        fcd_real s = 0;
        for (int a = 0; a < d; a++) s += p->G[l * m + c * d + a] * gen[q * d + a];
        A[j * k + l] = s;
        nn += s * s;
      }
      /* a contact no rigid mode moves (held elastically) gives zero columns, never chosen */
      nn = sqrt(nn);
      for (fcd_index l = 0; l < k; l++) A[j * k + l] = nn > 0 ? A[j * k + l] / nn : 0;
    }
  }
  return j;
}

/* The motion m = -R v (nf, scaled to a largest entry of 1; *at its largest entry) and
 * the contacts' motions w = H m = -G^T v (m, same scaling); returns |w| largest over
 * the contacts. */
static fcd_real motions(const fcd__rigid_problem *p, const fcd_real *v, fcd_real *motion,
                        fcd_index *at, fcd_real *w) {
  int d = p->d;
  fcd_index k = p->k, nf = p->nf, m = p->nc * d;
  fcd_real mmax = 0, wmax = 0;
  *at = 0;
  for (fcd_index q = 0; q < nf; q++) {
    fcd_real s = 0;
    for (fcd_index l = 0; l < k; l++) s -= p->R[l * nf + q] * v[l];
    motion[q] = s;
    if (fabs(s) > mmax) {
      mmax = fabs(s);
      *at = q;
    }
  }
  for (fcd_index q = 0; q < nf && mmax > 0; q++) motion[q] /= mmax;
  for (fcd_index i = 0; i < m; i++) {
    fcd_real s = 0;
    for (fcd_index l = 0; l < k; l++) s -= p->G[l * m + i] * v[l];
    w[i] = mmax > 0 ? s / mmax : s;
  }
  for (fcd_index c = 0; c < p->nc; c++) {
    fcd_real wc = 0;
    for (int a = 0; a < d; a++) wc += w[c * d + a] * w[c * d + a];
    wmax = fmax(wmax, sqrt(wc));
  }
  return wmax;
}

int fcd__rigid_existence(const fcd__rigid_problem *p, fcd_mechanism *mech, fcd_real *motion) {
  int d = p->d;
  fcd_index k = p->k, nc = p->nc, m = nc * d;
  memset(mech, 0, sizeof *mech);
  mech->dof = mech->contact = mech->pivot = -1;
  mech->nmodes = k;
  fcd_index per = p->slip ? 1 : d == 2 ? 3 : PYRAMID + 1;
  if (per < 2 * d - 1) per = 2 * d - 1;
  fcd_index ng = nc * per;
  fcd_real *A = fcd__calloc((size_t)(ng * k) + 1, sizeof *A);
  fcd_real *lam = fcd__malloc_array((size_t)ng + 1, sizeof *lam);
  fcd_real *res = fcd__malloc_array((size_t)k + 1, sizeof *res);
  fcd_index *owner = fcd__malloc_array((size_t)ng + 1, sizeof *owner);
  fcd_real *w = fcd__malloc_array((size_t)m + 1, sizeof *w);
  int rc = -1;
  if (!A || !lam || !res || !owner || !w) goto done;
  ng = columns(p, 0, A, owner);
  if (fcd__nnls(k, ng, A, p->e, lam, res) < 0) goto done;
  fcd_real un = 0;
  for (fcd_index l = 0; l < k; l++) un += res[l] * res[l];
  un = sqrt(un);
  mech->unbalance = un;
  mech->force_scale = p->scale;
  if (!(un > p->tol * p->scale)) {
    rc = 1;
    goto done;
  }
  /* No equilibrium. With infinite friction (r_T free), could the contacts hold it? If not,
   * friction is not the reason: the certificate of that problem moves no contact
   * tangentially (the dual of r_N <= 0 with r_T free is w_T = 0, w_N <= 0), so its
   * contacts either open or stay: they stay and carry load about an edge (tipping), or
   * they all open (separation), or none moves (nothing holds the body). If so, friction
   * is short (gross slip), named by the motion that slides the contacts. */
  fcd_real *res0 = fcd__malloc_array((size_t)k + 1, sizeof *res0);
  if (!res0) goto done;
  memcpy(res0, res, (size_t)k * sizeof *res);
  ng = columns(p, 1, A, owner);
  fcd_index it = fcd__nnls(k, ng, A, p->e, lam, res);
  fcd_real un1 = 0;
  for (fcd_index l = 0; l < k; l++) un1 += res[l] * res[l];
  un1 = sqrt(un1);
  if (it < 0) {
    fcd__free(res0);
    goto done;
  }
  if (un1 > p->tol * p->scale) {
    fcd_real wmax = motions(p, res, motion, &mech->dof, w);
    const fcd_real eps = 1e-6 * wmax;
    fcd_real open_most = 0, pivot_load = 0;
    for (fcd_index c = 0; c < nc; c++) {
      const fcd_real *wc = w + c * d;
      fcd_real load = 0;
      for (fcd_index g = 0; g < ng; g++)
        if (owner[g] == c) load += lam[g];
      if (sqrt(wc[0] * wc[0] + fcd__tnorm(d, wc) * fcd__tnorm(d, wc)) <= eps) {
        if (load > pivot_load) {
          pivot_load = load;
          mech->pivot = c;
        }
      } else if (-wc[0] > open_most) {
        open_most = -wc[0];
        mech->contact = c;
      }
    }
    if (mech->pivot >= 0)
      mech->kind = FCD_MECH_TIPPING; /* about the pivot, alone or beside opening contacts */
    else
      mech->kind = mech->contact >= 0 ? FCD_MECH_SEPARATION : FCD_MECH_UNSUPPORTED;
  } else {
    fcd_real wmax = motions(p, res0, motion, &mech->dof, w);
    fcd_real slide_most = 0;
    for (fcd_index c = 0; c < nc; c++) {
      fcd_real wt = fcd__tnorm(d, w + c * d);
      if (wt > slide_most) {
        slide_most = wt;
        mech->contact = c;
      }
    }
    mech->kind = FCD_MECH_GROSS_SLIP;
    slide_motion(p, w, wmax, motion);
  }
  fcd__free(res0);
  rc = 0;
done:
  fcd__free(A);
  fcd__free(lam);
  fcd__free(res);
  fcd__free(owner);
  fcd__free(w);
  return rc;
}

/* ---- naming the motion in space ----------------------------------------------------- */

/* the rigid motion that fits the node motions v (np nodes, dim each, at x): t at the
 * centroid c and omega (2D: one entry); 1 when the fit is exact to 1e-6 of |v| */
static int fit_rigid(int dim, fcd_index np, const fcd_real *x, const fcd_real *v,
                     fcd_real *c, fcd_real *t, fcd_real *om) {
  for (int a = 0; a < 3; a++) c[a] = t[a] = om[a] = 0;
  if (np == 0) return 0;
  for (fcd_index i = 0; i < np; i++)
    for (int a = 0; a < dim; a++) {
      c[a] += x[i * dim + a] / (fcd_real)np;
      t[a] += v[i * dim + a] / (fcd_real)np;
    }
  if (dim == 2) {
    fcd_real num = 0, den = 0;
    for (fcd_index i = 0; i < np; i++) {
      fcd_real rx = x[2 * i] - c[0], ry = x[2 * i + 1] - c[1];
      num += rx * v[2 * i + 1] - ry * v[2 * i];
      den += rx * rx + ry * ry;
    }
    om[2] = den > 0 ? num / den : 0;
  } else {
    /* (sum |r|^2 I - r r^T) omega = sum r x v */
    fcd_real J[9] = {0}, rhs[3] = {0};
    for (fcd_index i = 0; i < np; i++) {
      fcd_real r[3], vv[3];
      for (int a = 0; a < 3; a++) {
        r[a] = x[3 * i + a] - c[a];
        vv[a] = v[3 * i + a];
      }
      fcd_real rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) J[3 * a + b] += (a == b ? rr : 0) - r[a] * r[b];
      rhs[0] += r[1] * vv[2] - r[2] * vv[1];
      rhs[1] += r[2] * vv[0] - r[0] * vv[2];
      rhs[2] += r[0] * vv[1] - r[1] * vv[0];
    }
    /* Cramer's rule; nodes on a line leave J singular: no rotation named */
    fcd_real det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
                   J[2] * (J[3] * J[7] - J[4] * J[6]);
    fcd_real tr = J[0] + J[4] + J[8];
    /* all nodes at one point (no coordinates): a translation or nothing */
    if (tr > 0 && !(fabs(det) > 1e-12 * tr * tr * tr)) return 0;
    for (int col = 0; col < 3 && tr > 0; col++) {
      fcd_real M[9];
      memcpy(M, J, sizeof M);
      for (int a = 0; a < 3; a++) M[3 * a + col] = rhs[a];
      om[col] = (M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
                 M[2] * (M[3] * M[7] - M[4] * M[6])) / det;
    }
  }
  fcd_real err = 0, nv = 0;
  for (fcd_index i = 0; i < np; i++) {
    fcd_real r[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++) r[a] = x[i * dim + a] - c[a];
    fcd_real f[3] = {t[0] + om[1] * r[2] - om[2] * r[1], t[1] + om[2] * r[0] - om[0] * r[2],
                     t[2] + om[0] * r[1] - om[1] * r[0]};
    for (int a = 0; a < dim; a++) {
      err += (v[i * dim + a] - f[a]) * (v[i * dim + a] - f[a]);
      nv += v[i * dim + a] * v[i * dim + a];
    }
  }
  return nv > 0 && err <= 1e-12 * nv;
}

static void name_motion(fcd_mechanism *mech, int dim, fcd_index np, const fcd_real *x,
                        const fcd_real *v, int translation_only) {
  fcd_real c[3], t[3], om[3];
  if (!fit_rigid(dim, np, x, v, c, t, om)) return;
  fcd_real L = 0, tn = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
  fcd_real on = sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]);
  for (fcd_index i = 0; i < np; i++) {
    fcd_real r = 0;
    for (int a = 0; a < dim; a++) r += (x[i * dim + a] - c[a]) * (x[i * dim + a] - c[a]);
    L = fmax(L, sqrt(r));
  }
  if (on * L <= 1e-6 * tn) {
    if (!(tn > 0)) return;
    mech->motion = FCD_MOTION_TRANSLATION;
    /* components at round-off are zero: "along (1, 0)", not "(1, -8.3e-17)" */
    for (int a = 0; a < 3; a++)
      mech->direction[a] = fabs(t[a]) <= 1e-12 * tn ? 0.0 : t[a] / tn;
    return;
  }
  if (translation_only || !(on > 0)) return;
  for (int a = 0; a < 3; a++)
    mech->direction[a] = fabs(om[a]) <= 1e-12 * on ? 0.0 : om[a] / on;
  /* the axis' point nearest the centroid: c + omega x t / |omega|^2 */
  fcd_real oxt[3] = {om[1] * t[2] - om[2] * t[1], om[2] * t[0] - om[0] * t[2],
                     om[0] * t[1] - om[1] * t[0]};
  for (int a = 0; a < 3; a++) {
    mech->point[a] = c[a] + oxt[a] / (on * on);
    /* round-off of a coordinate that is zero: "(1, 0.5, 0)", not "2.2e-16" */
    if (fabs(mech->point[a]) <= 1e-12 * (L + fabs(c[0]) + fabs(c[1]) + fabs(c[2])))
      mech->point[a] = 0;
  }
  if (dim == 2) mech->point[2] = 0;
  fcd_real pitch = (om[0] * t[0] + om[1] * t[1] + om[2] * t[2]) / on;
  mech->motion = dim == 3 && fabs(pitch) > 1e-6 * (tn + on * L) ? FCD_MOTION_SCREW
                                                                : FCD_MOTION_ROTATION;
}

void fcd__mechanism_describe(fcd_mechanism *mech, const fcd_real *motion, fcd_index n,
                             const fcd__geometry *geo, const fcd_contact_set *cs) {
  mech->motion = FCD_MOTION_UNKNOWN;
  for (int a = 0; a < 3; a++) mech->direction[a] = mech->point[a] = 0;
  if (geo) {
    int dim = geo->dim;
    /* the body of the node that moves most */
    fcd_index best = -1;
    fcd_real vmax = 0;
    for (fcd_index i = 0; i < geo->nn; i++) {
      fcd_real s = 0;
      for (int a = 0; a < dim; a++) {
        fcd_index q = geo->dof[i * dim + a];
        if (q >= 0 && q < n) s += motion[q] * motion[q];
      }
      if (s > vmax) {
        vmax = s;
        best = i;
      }
    }
    if (best < 0) return;
    fcd_index body = geo->body[best], np = 0;
    fcd_real *x = fcd__malloc_array((size_t)(geo->nn * dim) + 1, sizeof *x);
    fcd_real *v = fcd__malloc_array((size_t)(geo->nn * dim) + 1, sizeof *v);
    if (x && v) {
      /* the body's nodes that move: without cells every node is one "body", and the
       * others' (a base held still) must not enter the fit */
      for (fcd_index i = 0; i < geo->nn; i++) {
        if (geo->body[i] != body) continue;
        fcd_real s = 0;
        for (int a = 0; a < dim; a++) {
          fcd_index q = geo->dof[i * dim + a];
          x[np * dim + a] = geo->x[i * dim + a];
          v[np * dim + a] = q >= 0 && q < n ? motion[q] : 0;
          s += v[np * dim + a] * v[np * dim + a];
        }
        if (s > 1e-20 * vmax) np++;
      }
      name_motion(mech, dim, np, x, v, 0);
    }
    fcd__free(x);
    fcd__free(v);
    return;
  }
  /* no coordinates: the nodes of frame contacts (rigid, pair) give vectors of their
   * moving body; equal vectors are a translation */
  if (!cs) return;
  int dim = cs->dim;
  fcd_index np = 0;
  fcd_real *v = fcd__malloc_array((size_t)(2 * cs->n * dim) + 1, sizeof *v);
  fcd_real *x = fcd__calloc((size_t)(2 * cs->n * dim) + 1, sizeof *x);
  if (v && x) {
    fcd_real vmax = 0;
    for (fcd_index c = 0; c < cs->n; c++) {
      const fcd__contact *k = &cs->c[c];
      if (k->rows) continue;
      for (int b = 0; b < (k->pair ? 2 : 1); b++) {
        const fcd_index *dofs = b ? k->dofs_b : k->dofs_a;
        fcd_real s = 0;
        for (int a = 0; a < dim; a++) {
          v[np * dim + a] = motion[dofs[a]];
          s += v[np * dim + a] * v[np * dim + a];
        }
        vmax = fmax(vmax, s);
        np++;
      }
    }
    /* the nodes that move (a pair's other body may stay) */
    fcd_index q = 0;
    for (fcd_index i = 0; i < np; i++) {
      fcd_real s = 0;
      for (int a = 0; a < dim; a++) s += v[i * dim + a] * v[i * dim + a];
      if (s > 1e-12 * vmax) {
        memmove(v + q * dim, v + i * dim, (size_t)dim * sizeof *v);
        q++;
      }
    }
    if (q > 0) name_motion(mech, dim, q, x, v, 1);
  }
  fcd__free(v);
  fcd__free(x);
}

static const char *kind_text(int kind, int frictionless, int steady) {
  switch (kind) {
  case FCD_MECH_GROSS_SLIP:
    if (steady)
      return "the friction of steady sliding drags the body along with nothing to balance "
             "it";
    return frictionless ? "nothing resists the tangential load (frictionless contacts): the "
                          "body slides away"
                        : "friction cannot balance the tangential load: the body slides "
                          "away (gross slip)";
  case FCD_MECH_TIPPING: return "the body tips about an edge of its support";
  case FCD_MECH_SEPARATION: return "the load pulls the body away: it separates from its support";
  default: return "nothing holds the body: no contact acts along a rigid motion that the "
                  "load drives";
  }
}

void fcd__mechanism_format(const fcd_mechanism *mech, int d, int frictionless, int steady,
                           char *buf, size_t cap) {
  char geo[200] = "";
  const fcd_real *u = mech->direction, *p = mech->point;
  if (mech->motion == FCD_MOTION_TRANSLATION) {
    if (d == 2)
      snprintf(geo, sizeof geo, "a translation along (%.3g, %.3g)", u[0], u[1]);
    else
      snprintf(geo, sizeof geo, "a translation along (%.3g, %.3g, %.3g)", u[0], u[1], u[2]);
  } else if (mech->motion == FCD_MOTION_ROTATION && d == 2) {
    snprintf(geo, sizeof geo, "a %s rotation about (%.6g, %.6g)",
             u[2] > 0 ? "counter-clockwise" : "clockwise", p[0], p[1]);
  } else if (mech->motion == FCD_MOTION_ROTATION || mech->motion == FCD_MOTION_SCREW) {
    snprintf(geo, sizeof geo, "a %s about the axis through (%.6g, %.6g, %.6g) along "
             "(%.3g, %.3g, %.3g)", mech->motion == FCD_MOTION_SCREW ? "screw motion" : "rotation",
             p[0], p[1], p[2], u[0], u[1], u[2]);
  }
  char who[160] = "";
  if (mech->kind == FCD_MECH_TIPPING && mech->contact >= 0)
    snprintf(who, sizeof who, "; contact %lld carries the load and stays, contact %lld opens",
             (long long)mech->pivot, (long long)mech->contact);
  else if (mech->kind == FCD_MECH_TIPPING)
    snprintf(who, sizeof who, "; contact %lld carries the load and stays", (long long)mech->pivot);
  else if (mech->kind == FCD_MECH_GROSS_SLIP)
    snprintf(who, sizeof who, "; contact %lld slides most", (long long)mech->contact);
  else if (mech->kind == FCD_MECH_SEPARATION)
    snprintf(who, sizeof who, "; contact %lld opens most", (long long)mech->contact);
  snprintf(buf, cap,
           "%s: no admissible contact reactions balance the load along the %lld rigid "
           "mode(s) of the free dofs; an unbalanced force of %.3e (%.1e of the load %.3e) "
           "moves the body along a rigid motion (%s%sthe rigid mode that moves dof %lld "
           "most)%s",
           kind_text(mech->kind, frictionless, steady), (long long)mech->nmodes, mech->unbalance,
           mech->force_scale > 0 ? mech->unbalance / mech->force_scale : 0.0,
           mech->force_scale, geo, geo[0] ? ", " : "", (long long)mech->dof, who);
}
