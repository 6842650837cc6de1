/* The subdomains' nested dissection ordered on their own ranks (run under mpiexec -n 1, 2
 * and 3): a G x G x G grid graph (7-point stencil) whose bottom layer is the last set (the
 * contact dofs' place). Rank 0 separates it (fcd__metis_separators, one or two levels),
 * then every rank orders the parts it is sent (fcd__nd_parts). Checked on rank 0, from
 * the definitions alone: the separators leave parts that no entry joins; pos is a
 * permutation of 1..n; each part's dofs take one contiguous block of places, part 0 first;
 * the separators then the last set close the order, in the list's order; and within a
 * part the order is METIS' own (the same as fcd__metis_part_order gives on rank 0). With
 * no parts, rank 0's order of the whole pattern, the last set last. */
#include "petsc_backend.h"
#include "../fcdtest.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { G = 14, N = G * G * G };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, levels = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  while ((1 << levels) < size) levels++;
  if (levels == 0) levels = 1; /* one rank orders both halves itself */
  int nparts = 1 << levels;
  static int irn[8 * N], jcn[8 * N], list[N], parts[N], pos[N];
  size_t nt = 0;
  int s = 0;
  for (int i = 0; i < N; i++) {
    int x = i % G, y = (i / G) % G, z = i / (G * G);
    int nb[7] = {i, x > 0 ? i - 1 : -1, x < G - 1 ? i + 1 : -1, y > 0 ? i - G : -1,
                 y < G - 1 ? i + G : -1, z > 0 ? i - G * G : -1, z < G - 1 ? i + G * G : -1};
    for (int k = 0; k < 7; k++)
      if (nb[k] >= 0) {
        irn[nt] = i + 1;
        jcn[nt++] = nb[k] + 1;
      }
  }
  for (int i = 0; i < G * G; i++) list[s++] = i + 1; /* the bottom layer */
  fcd_system *sys;
  CHECK_ST(fcd_system_create(1, &sys), FCD_OK);
  fcd_index nsep = 0;
  static int sep[N], slist[N];
  if (rank == 0) {
    CHECK_ST(fcd__metis_separators(sys, N, nt, irn, jcn, s, list, levels, 1, sep, &nsep,
                                   parts),
             FCD_OK);
    CHECK(nsep > 0 && nsep < N / 4);
    int joined = 0, in_part = 0;
    for (size_t p = 0; p < nt; p++) {
      int a = parts[irn[p] - 1], b = parts[jcn[p] - 1];
      joined += a >= 0 && b >= 0 && a != b;
    }
    for (int i = 0; i < N; i++) in_part += parts[i] >= 0 && parts[i] < nparts;
    CHECK(joined == 0);
    CHECK(in_part + nsep + s == N);
    memcpy(slist, sep, (size_t)nsep * sizeof *slist);
    memcpy(slist + nsep, list, (size_t)s * sizeof *slist);
  }
  int ordered = 0;
  fcd_index ns = nsep + s;
  CHECK_ST(fcd__nd_parts(sys, MPI_COMM_WORLD, nparts, rank ? 0 : N, rank ? 0 : nt,
                         rank ? NULL : irn, rank ? NULL : jcn, rank ? NULL : parts,
                         rank ? 0 : ns, rank ? NULL : slist, rank ? NULL : pos, &ordered),
           FCD_OK);
  CHECK(ordered);
  if (rank == 0 && ordered) {
    static int seen[N + 1];
    int perm_ok = 1, blocks_ok = 1, tail_ok = 1, metis_same = 1;
    for (int i = 0; i < N; i++) perm_ok &= pos[i] >= 1 && pos[i] <= N && !seen[pos[i]]++;
    int start = 1;
    for (int p = 0; p < nparts; p++) {
      fcd__part_pattern pp;
      CHECK_ST(fcd__metis_part_pattern(sys, N, nt, irn, jcn, parts, p, &pp), FCD_OK);
      fcd_index *perm = malloc(((size_t)pp.n + 1) * sizeof *perm);
      int nd = 0;
      CHECK_ST(fcd__metis_part_order(sys, &pp, perm, &nd), FCD_OK);
      for (fcd_index k = 0; k < pp.n; k++) {
        blocks_ok &= pos[pp.back[k]] >= start && pos[pp.back[k]] < start + pp.n;
        metis_same &= nd && pos[pp.back[perm[k]]] == start + (int)k;
      }
      start += (int)pp.n;
      free(perm);
      fcd__part_pattern_free(&pp);
    }
    for (fcd_index a = 0; a < ns; a++) tail_ok &= pos[slist[a] - 1] == start + (int)a;
    CHECK(perm_ok);
    CHECK(blocks_ok);
    CHECK(tail_ok);
    CHECK(start - 1 + ns == N);
    CHECK(metis_same);
  }
  /* no parts: METIS' order of the whole pattern on rank 0 (the same as
   * fcd__metis_order_last there), the last set closing it in its order */
  static int pos0[N], ref[N];
  int ordered0 = 0;
  CHECK_ST(fcd__nd_parts(sys, MPI_COMM_WORLD, 0, rank ? 0 : N, rank ? 0 : nt,
                         rank ? NULL : irn, rank ? NULL : jcn, NULL, rank ? 0 : s,
                         rank ? NULL : list, rank ? NULL : pos0, &ordered0),
           FCD_OK);
  CHECK(ordered0);
  if (rank == 0) {
    int nd = 0, tail0 = 1;
    CHECK_ST(fcd__metis_order_last(sys, N, nt, irn, jcn, s, list, ref, &nd), FCD_OK);
    CHECK(nd && memcmp(pos0, ref, sizeof ref) == 0);
    for (int a = 0; a < s; a++) tail0 &= pos0[list[a] - 1] == N - s + a + 1;
    CHECK(tail0);
  }
  fcd_system_destroy(sys);
  int failures = fcdt_failures, any;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%d checks on rank 0, %d failed (worst rank: %d)\n", fcdt_checks, fcdt_failures,
           any);
  fcd_finalize();
  MPI_Finalize();
  return any ? 1 : 0;
}
