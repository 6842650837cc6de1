// The deal.II host of fcd (issue 26; docs/examples/dealii-host.md).
//
// deal.II meshes and assembles a brake pad (trilinear hexahedra, linear elasticity,
// consistent mass); its lower face (boundary id 4) rests on a rigid disc turning about
// the z axis, its upper face (boundary id 5) is pushed towards the disc and held. fcd
// takes deal.II's matrices, its dof numbering and the contact nodes, normals and
// tangents read from the boundary ids and the mapping, and gives
//   1. the steady-sliding equilibrium (checked against deal.II's own solve without
//      friction, and by the balance of contact and support forces with friction),
//   2. the stability of that state over a friction sweep (flutter by mode coupling),
//   3. a short transient at a coefficient where the state is unstable.
// deal.II's DataOut writes the equilibrium, the unstable mode shapes (one period as a
// .pvd series each) and the transient (.vtu + .pvd) for ParaView.
//
// usage: dealii_host [--quick] [--out DIR]
#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/sparse_direct.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/vector.h>
#include <deal.II/numerics/data_out.h>
#include <deal.II/numerics/matrix_tools.h>
#include <deal.II/numerics/vector_tools.h>

#include <fcd/fcd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace dealii;
constexpr int dim = 3;

namespace {

// ---- the model (SI units) ----
struct Model {
  // pad: radial extent [R0, R1], circumferential [-W/2, W/2], thickness T
  double R0 = 0.12, R1 = 0.16, W = 0.06, T = 0.012;
  double E = 2.0e9, nu = 0.3, rho = 2500.0;  // a resin-bound friction material
  double press = 2.0e-5;                     // the upper face pushed 20 um towards the disc
  double omega = 50.0;                       // disc speed, rad/s, about +z
  double mu = 0.3;                           // friction of the sliding equilibrium
  double beta = 3.2e-7;                      // stiffness-proportional damping: 1% at 10 kHz
  unsigned nx = 8, ny = 12, nz = 3;          // hexahedra along r, the circumference, z
};

int n_checks = 0, n_failed = 0;
void check(bool ok, const std::string &what) {
  n_checks++;
  if (!ok) n_failed++;
  std::printf("check: %s: %s\n", what.c_str(), ok ? "ok" : "FAILED");
}

// deal.II keeps the diagonal first in each row of a square matrix and its column numbers
// in 32 bits; fcd wants each row's columns increasing, in 64 bits. The host copies the
// pattern once (sorted) and a permutation, and gathers the values through it; fcd then
// borrows these arrays (FCD_BORROW), so a refill after new values is one gather.
struct FcdCsr {
  std::vector<fcd_index> rowptr, col, perm;
  std::vector<double> val;
  void pattern(const SparsityPattern &sp) {
    const std::size_t n = sp.n_rows();
    rowptr.assign(n + 1, 0);
    col.clear();
    perm.clear();
    std::vector<std::pair<fcd_index, fcd_index>> row;
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; i++) {
      row.clear();
      for (auto it = sp.begin(i); it != sp.end(i); ++it, ++k)
        row.emplace_back(static_cast<fcd_index>(it->column()), static_cast<fcd_index>(k));
      std::sort(row.begin(), row.end());
      for (auto &e : row) {
        col.push_back(e.first);
        perm.push_back(e.second);
      }
      rowptr[i + 1] = static_cast<fcd_index>(col.size());
    }
    val.assign(col.size(), 0.0);
  }
  void gather(const SparseMatrix<double> &a) {
    // deal.II's value array runs in the same order as the pattern's iterator
    std::vector<double> raw;
    raw.reserve(val.size());
    for (std::size_t i = 0; i < a.m(); i++)
      for (auto it = a.begin(i); it != a.end(i); ++it) raw.push_back(it->value());
    for (std::size_t p = 0; p < val.size(); p++) val[p] = raw[static_cast<std::size_t>(perm[p])];
  }
};

struct ContactNode {
  fcd_index dofs[dim];
  Point<dim> x;
  Tensor<1, dim> normal;  // area-weighted sum of the faces' outward normals
};

struct Host {
  Model m;
  Triangulation<dim> tria;
  FESystem<dim> fe{FE_Q<dim>(1), dim};
  MappingQ<dim> mapping{1};
  DoFHandler<dim> dh;
  SparsityPattern sp;
  SparseMatrix<double> K, M;
  FcdCsr kf, mf;
  std::map<types::global_dof_index, double> top;  // prescribed dofs of the upper face
  std::vector<ContactNode> nodes;
  std::vector<double> normals, tangents, speed, vg;
  std::vector<fcd_index> cdofs;
  fcd_system *sys = nullptr;
  fcd_contact_set *cs = nullptr;
  std::string out;

  void build() {
    GridGenerator::subdivided_hyper_rectangle(tria, {m.nx, m.ny, m.nz},
                                              Point<dim>(m.R0, -m.W / 2, 0.0),
                                              Point<dim>(m.R1, m.W / 2, m.T), true);
    dh.reinit(tria);
    dh.distribute_dofs(fe);
    DynamicSparsityPattern dsp(dh.n_dofs());
    DoFTools::make_sparsity_pattern(dh, dsp);
    sp.copy_from(dsp);
    K.reinit(sp);
    M.reinit(sp);
    assemble();
    VectorTools::interpolate_boundary_values(
        mapping, dh, 5, Functions::ConstantFunction<dim>(std::vector<double>{0.0, 0.0, -m.press}),
        top);
    find_contact_nodes();
  }

  void assemble() {
    const double lambda = m.E * m.nu / ((1 + m.nu) * (1 - 2 * m.nu)), mu_l = m.E / (2 * (1 + m.nu));
    QGauss<dim> q(2);
    FEValues<dim> fv(mapping, fe, q, update_values | update_gradients | update_JxW_values);
    const unsigned nd = fe.n_dofs_per_cell();
    FullMatrix<double> ck(nd, nd), cm(nd, nd);
    std::vector<types::global_dof_index> ldi(nd);
    for (const auto &cell : dh.active_cell_iterators()) {
      fv.reinit(cell);
      ck = 0;
      cm = 0;
      for (unsigned qp = 0; qp < q.size(); qp++)
        for (unsigned i = 0; i < nd; i++) {
          const unsigned ci = fe.system_to_component_index(i).first;
          for (unsigned j = 0; j < nd; j++) {
            const unsigned cj = fe.system_to_component_index(j).first;
            const auto gi = fv.shape_grad(i, qp), gj = fv.shape_grad(j, qp);
            ck(i, j) += (gi[ci] * gj[cj] * lambda + gi[cj] * gj[ci] * mu_l +
                         (ci == cj ? gi * gj * mu_l : 0.0)) * fv.JxW(qp);
            if (ci == cj) cm(i, j) += m.rho * fv.shape_value(i, qp) * fv.shape_value(j, qp) * fv.JxW(qp);
          }
        }
      cell->get_dof_indices(ldi);
      K.add(ldi, ck);
      M.add(ldi, cm);
    }
  }

  // The contact nodes: the vertices of the faces with boundary id 4, with the outward
  // normal of the mapping summed over their faces (weighted by area) and the disc's
  // circumferential direction as the first tangent.
  void find_contact_nodes() {
    QGauss<dim - 1> fq(2);
    FEFaceValues<dim> ffv(mapping, fe, fq, update_normal_vectors | update_JxW_values);
    std::map<unsigned, ContactNode> by_vertex;
    for (const auto &cell : dh.active_cell_iterators())
      for (const unsigned f : cell->face_indices()) {
        if (!cell->face(f)->at_boundary() || cell->face(f)->boundary_id() != 4) continue;
        ffv.reinit(cell, f);
        Tensor<1, dim> an;
        for (unsigned qp = 0; qp < fq.size(); qp++) an += ffv.normal_vector(qp) * ffv.JxW(qp);
        const auto face = cell->face(f);
        for (unsigned v = 0; v < face->n_vertices(); v++) {
          ContactNode &c = by_vertex[face->vertex_index(v)];
          c.x = face->vertex(v);
          for (unsigned k = 0; k < dim; k++)
            c.dofs[k] = static_cast<fcd_index>(face->vertex_dof_index(v, k));
          c.normal += an;
        }
      }
    for (auto &e : by_vertex) nodes.push_back(e.second);
    for (const ContactNode &c : nodes) {
      Tensor<1, dim> n = c.normal / c.normal.norm();
      const double r = std::hypot(c.x[0], c.x[1]);
      Tensor<1, dim> t;  // the disc's direction of motion at the node, in the face's plane
      t[0] = -c.x[1] / r;
      t[1] = c.x[0] / r;
      t -= (t * n) * n;
      t /= t.norm();
      for (unsigned k = 0; k < dim; k++) {
        normals.push_back(n[k]);
        tangents.push_back(t[k]);
        cdofs.push_back(c.dofs[k]);
      }
      speed.push_back(m.omega * r);
      vg.push_back(m.omega * r);  // the disc slides along T under the pad
      vg.push_back(0.0);
    }
  }

  bool to_fcd() {
    const fcd_index n = static_cast<fcd_index>(dh.n_dofs());
    kf.pattern(sp);
    mf.pattern(sp);
    kf.gather(K);
    mf.gather(M);
    std::vector<fcd_index> fd;
    std::vector<double> fvals;
    for (auto &e : top) {
      fd.push_back(static_cast<fcd_index>(e.first));
      fvals.push_back(e.second);
    }
    const std::size_t nc = nodes.size();
    std::vector<double> gaps(nc, 0.0), mus(nc, m.mu);
    fcd_status st = fcd_system_create(n, &sys);
    if (st == FCD_OK)
      st = fcd_system_set_matrix_csr(sys, FCD_STIFFNESS, kf.rowptr.data(), kf.col.data(),
                                     kf.val.data(), FCD_COO_FULL, FCD_BORROW);
    if (st == FCD_OK)
      st = fcd_system_set_matrix_csr(sys, FCD_MASS, mf.rowptr.data(), mf.col.data(),
                                     mf.val.data(), FCD_COO_FULL, FCD_BORROW);
    if (st == FCD_OK) st = fcd_system_set_rayleigh(sys, 0.0, m.beta);
    if (st == FCD_OK)
      st = fcd_system_fix_dofs(sys, static_cast<fcd_index>(fd.size()), fd.data(), fvals.data());
    if (st == FCD_OK) st = fcd_contact_set_create(sys, dim, &cs);
    if (st == FCD_OK)
      st = fcd_contact_set_add_rigid_n(cs, static_cast<fcd_index>(nc), cdofs.data(),
                                       normals.data(), tangents.data(), gaps.data(), mus.data(),
                                       vg.data(), nullptr);
    if (st != FCD_OK) {
      std::fprintf(stderr, "dealii_host: %s\n", sys ? fcd_system_last_error(sys) : "no system");
      return false;
    }
    return true;
  }

  void set_friction(double mu) {
    for (std::size_t c = 0; c < nodes.size(); c++)
      fcd_contact_set_set_friction(cs, static_cast<fcd_index>(c), mu);
  }

  // deal.II's DataOut: one displacement field in the host's own dof numbering
  void write(const std::vector<double> &u, const std::string &name) {
    Vector<double> uv(u.begin(), u.end());
    DataOut<dim> data_out;
    data_out.attach_dof_handler(dh);
    std::vector<DataComponentInterpretation::DataComponentInterpretation> kind(
        dim, DataComponentInterpretation::component_is_part_of_vector);
    data_out.add_data_vector(uv, std::vector<std::string>(dim, "displacement"),
                             DataOut<dim>::type_dof_data, kind);
    data_out.build_patches(mapping);
    std::ofstream f(out + "/" + name);
    data_out.write_vtu(f);
  }
  void write_pvd(const std::string &name, const std::vector<std::pair<double, std::string>> &rec) {
    std::ofstream f(out + "/" + name);
    DataOutBase::write_pvd_record(f, rec);
  }
};

// ---- 1. the steady-sliding equilibrium ----
struct Equilibrium {
  std::vector<double> u, r, slip, rn;
  std::vector<int> status;
};

bool sliding_equilibrium(Host &h, fcd_equilibrium *eq, Equilibrium &e) {
  const std::size_t nc = h.nodes.size(), n = h.dh.n_dofs();
  e.u.assign(n, 0.0);
  e.r.assign(dim * nc, 0.0);
  e.slip.assign((dim - 1) * nc, 0.0);
  e.status.assign(nc, 0);
  e.rn.assign(nc, 0.0);
  fcd_status st = fcd_equilibrium_solve(eq, FCD_EQ_STEADY_SLIDING, 0.0);
  if (st == FCD_OK) st = fcd_equilibrium_get_state(eq, e.u.data());
  if (st == FCD_OK) st = fcd_equilibrium_get_reactions(eq, e.r.data());
  if (st == FCD_OK) st = fcd_equilibrium_get_contact_state(eq, e.status.data(), e.slip.data());
  if (st != FCD_OK) {
    std::printf("sliding equilibrium: %s\n", fcd_system_last_error(h.sys));
    return false;
  }
  for (std::size_t c = 0; c < nc; c++) e.rn[c] = e.r[dim * c];
  return true;
}

// deal.II's own answer without friction: every node of the lower face held on the disc
// (u . n = 0, tangentially free) and the upper face prescribed, solved by UMFPACK. The
// pad is pressed everywhere, so the frictionless Signorini problem is this bilateral one
// when every contact stays closed, which fcd's answer must also show.
void dealii_frictionless(Host &h, std::vector<double> &u, std::vector<double> &fn) {
  std::map<types::global_dof_index, double> bv = h.top;
  for (const ContactNode &c : h.nodes) bv[static_cast<types::global_dof_index>(c.dofs[2])] = 0.0;
  SparseMatrix<double> a(h.sp);
  a.copy_from(h.K);
  Vector<double> x(h.dh.n_dofs()), b(h.dh.n_dofs());
  MatrixTools::apply_boundary_values(bv, a, x, b, true);
  SparseDirectUMFPACK lu;
  lu.initialize(a);
  lu.vmult(x, b);
  u.assign(x.begin(), x.end());
  Vector<double> ku(h.dh.n_dofs());
  h.K.vmult(ku, x);
  fn.clear();
  for (const ContactNode &c : h.nodes) fn.push_back(ku[static_cast<unsigned>(c.dofs[2])]);
}

// ---- 2. the friction sweep ----
struct Chart {
  std::FILE *csv = nullptr;
  std::map<fcd_index, double> prev_mu, prev_re, crit, crit_hz;
  double max_re_at_zero = -1e300;
  bool first = true;
};

int chart_row(void *ud, fcd_real mu, fcd_index n, const fcd_real *re, const fcd_real *im,
              const fcd_index *track) {
  auto *c = static_cast<Chart *>(ud);
  for (fcd_index i = 0; i < n; i++) {
    if (im[i] < 0) continue;
    const double hz = im[i] / (2 * M_PI);
    std::fprintf(c->csv, "%.4f,%lld,%.6e,%.3f\n", mu, static_cast<long long>(track[i]), re[i], hz);
    if (c->first) c->max_re_at_zero = std::max(c->max_re_at_zero, re[i]);
    const fcd_index t = track[i];
    // unstable: a growth rate above round-off of the eigenvalue's size
    const bool unstable = re[i] > 1e-9 * std::hypot(re[i], im[i]);
    if (!c->crit.count(t) && unstable) {
      // the crossing, interpolated between the previous coefficient and this one
      c->crit[t] = c->prev_mu.count(t) ? c->prev_mu[t] + (mu - c->prev_mu[t]) * (-c->prev_re[t]) /
                                                             (re[i] - c->prev_re[t])
                                       : mu;
      c->crit_hz[t] = hz;
    }
    c->prev_mu[t] = mu;
    c->prev_re[t] = re[i];
  }
  c->first = false;
  return 0;
}

// ---- 3. the transient ----
struct Watch {
  Host *h = nullptr;
  fcd_integrator *it = nullptr;
  long steps = 0, every = 10, per = 40;  // per: steps in one period of the mode
  int max_open = 0, open0 = -1;
  long linear_periods = -1;  // whole periods before a contact changes status
  double amp_cur = 0;
  std::vector<double> env;  // the largest |du| over each period
  fcd_index mon = 0;
  const std::vector<double> *ue = nullptr;
  std::vector<std::pair<double, std::string>> rec;
  std::FILE *csv = nullptr;
};

int observe(void *ud, fcd_real t, fcd_index, const fcd_real *u, const fcd_real *, fcd_index,
            const fcd_real *r, const fcd_contact_counts *cc) {
  auto *w = static_cast<Watch *>(ud);
  try {
    w->steps++;
    w->max_open = std::max(w->max_open, static_cast<int>(cc->open));
    if (w->open0 < 0) w->open0 = static_cast<int>(cc->open);
    if (w->linear_periods < 0 && (cc->open != w->open0 || cc->stick > 0))
      w->linear_periods = static_cast<long>(w->env.size());
    const double du = u[w->mon] - (*w->ue)[static_cast<std::size_t>(w->mon)];
    // the envelope: the largest excursion over each period of the mode
    if ((w->steps - 1) % w->per == 0) w->amp_cur = 0;
    w->amp_cur = std::max(w->amp_cur, std::fabs(du));
    if (w->steps % w->per == 0) w->env.push_back(w->amp_cur);
    double ft = 0;
    for (std::size_t c = 0; c < w->h->nodes.size(); c++) ft += r[dim * c + 1];
    fcd_energy e{};
    fcd_integrator_get_energy(w->it, &e);
    std::fprintf(w->csv, "%.8e,%.6e,%.6e,%.6e,%lld,%lld,%lld\n", t, du, e.kinetic + e.potential,
                 ft, static_cast<long long>(cc->open), static_cast<long long>(cc->stick),
                 static_cast<long long>(cc->slip));
    if (w->steps % w->every == 0) {
      const std::string name = "transient-" + std::to_string(w->rec.size()) + ".vtu";
      w->h->write(std::vector<double>(u, u + w->h->dh.n_dofs()), name);
      w->rec.emplace_back(t, name);
    }
  } catch (...) {
    return 1;  // nothing may unwind through fcd's C frames
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  Host h;
  bool quick = false;
  h.out = "out-dealii";
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--out" && i + 1 < argc) h.out = argv[++i];
    else {
      std::fprintf(stderr, "usage: dealii_host [--quick] [--out DIR]\n");
      return 2;
    }
  }
  mkdir(h.out.c_str(), 0777);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (quick) {
    h.m.nx = 4;
    h.m.ny = 6;
    h.m.nz = 2;
  } else {
    h.m.nx = 12;
    h.m.ny = 18;
    h.m.nz = 4;
  }
  std::printf("fcd %s, deal.II %d.%d.%d\n", fcd_version_string(), DEAL_II_VERSION_MAJOR,
              DEAL_II_VERSION_MINOR, DEAL_II_VERSION_SUBMINOR);
  auto t0 = std::chrono::steady_clock::now();
  h.build();
  if (!h.to_fcd()) return 1;
  const std::size_t nc = h.nodes.size(), n = h.dh.n_dofs();
  std::printf("model: %u hexahedra, %zu dofs (%zu prescribed), %zu contact nodes; deal.II "
              "assembly %.2f s\n", h.tria.n_active_cells(), n, h.top.size(), nc,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  // 1a. without friction, against deal.II's own bilateral solve
  fcd_equilibrium *eq = nullptr;
  if (fcd_equilibrium_create(h.sys, h.cs, &eq) != FCD_OK) {
    std::printf("equilibrium: %s\n", fcd_system_last_error(h.sys));
    return 1;
  }
  Equilibrium e0, e;
  h.set_friction(0.0);
  if (!sliding_equilibrium(h, eq, e0)) return 1;
  std::vector<double> ud, fnd;
  dealii_frictionless(h, ud, fnd);
  double du = 0, un = 0, df = 0, fsum = 0;
  int closed = 0;
  for (std::size_t i = 0; i < n; i++) {
    du = std::max(du, std::fabs(e0.u[i] - ud[i]));
    un = std::max(un, std::fabs(ud[i]));
  }
  for (std::size_t c = 0; c < nc; c++) {
    // the obstacle's normal is -z: the force on the pad along +z is -r_N
    df = std::max(df, std::fabs(-e0.rn[c] - fnd[c]));
    fsum += fnd[c];
    closed += e0.status[c] != FCD_CONTACT_OPEN;
  }
  std::printf("mu = 0: normal force %.2f N (deal.II %.2f N); largest difference: displacement "
              "%.2e of %.2e m, nodal force %.2e N\n", -std::accumulate(e0.rn.begin(), e0.rn.end(), 0.0),
              fsum, du, un, df);
  check(closed == static_cast<int>(nc), "mu = 0: every node of the pressed face in contact (" +
                                            std::to_string(closed) + " of " + std::to_string(nc) + ")");
  check(du <= 1e-9 * un, "mu = 0: displacements equal deal.II's UMFPACK solve to 1e-9");
  check(df <= 1e-9 * std::fabs(fsum), "mu = 0: nodal contact forces equal deal.II's to 1e-9");

  // 1b. with friction
  h.set_friction(h.m.mu);
  if (!sliding_equilibrium(h, eq, e)) return 1;
  h.write(e.u, "equilibrium.vtu");
  h.write_pvd("equilibrium.pvd", {{0.0, "equilibrium.vtu"}});
  {
    // the forces the disc exerts, in x, y, z, against the supports' reactions
    double fc[dim] = {0, 0, 0}, torque = 0, torque_law = 0, fnorm = 0;
    int slip = 0;
    for (std::size_t c = 0; c < nc; c++) {
      const double r = std::hypot(h.nodes[c].x[0], h.nodes[c].x[1]);
      for (unsigned k = 0; k < dim; k++) {
        const double f = h.normals[dim * c + k] * e.r[dim * c] + h.tangents[dim * c + k] * e.r[dim * c + 1];
        fc[k] += f;
      }
      // the second tangent n x t carries no force in steady sliding along t
      torque += r * e.r[dim * c + 1];
      torque_law += r * h.m.mu * -e.rn[c];
      fnorm += -e.rn[c];
      slip += e.status[c] == FCD_CONTACT_SLIP;
    }
    std::vector<double> rs(h.top.size());
    fcd_system_support_reactions(h.sys, 0.0, e.u.data(), nullptr, nullptr, rs.data());
    std::vector<fcd_index> fixed(h.top.size());
    fcd_system_get_fixed(h.sys, fixed.data(), nullptr);
    double fs[dim] = {0, 0, 0}, bal = 0;
    // components of the fixed dofs, from deal.II's map of dofs to components
    std::vector<unsigned> comp(n);
    {
      std::vector<types::global_dof_index> ldi(h.fe.n_dofs_per_cell());
      for (const auto &cell : h.dh.active_cell_iterators()) {
        cell->get_dof_indices(ldi);
        for (unsigned i = 0; i < ldi.size(); i++) comp[ldi[i]] = h.fe.system_to_component_index(i).first;
      }
    }
    for (std::size_t i = 0; i < fixed.size(); i++) fs[comp[static_cast<std::size_t>(fixed[i])]] += rs[i];
    for (unsigned k = 0; k < dim; k++) bal = std::max(bal, std::fabs(fc[k] + fs[k]));
    double req = 0, rcomp = 0;
    fcd_equilibrium_get_residual(eq, &req, &rcomp);
    std::printf("mu = %.2f: %d of %zu nodes slide; normal force %.2f N, braking torque %.4f N m "
                "(mu sum r |r_N|: %.4f); contact force (%.3f, %.3f, %.3f) N, supports (%.3f, "
                "%.3f, %.3f) N; residuals %.1e, %.1e\n", h.m.mu, slip, nc, fnorm, torque,
                torque_law, fc[0], fc[1], fc[2], fs[0], fs[1], fs[2], req, rcomp);
    check(slip + (static_cast<int>(nc) - closed) >= static_cast<int>(nc) && slip > 0,
          "every closed node slides along the disc");
    check(std::fabs(torque - torque_law) <= 1e-9 * torque_law,
          "braking torque = mu sum r |r_N| to 1e-9");
    check(bal <= 1e-8 * fnorm, "contact forces balance the supports' reactions to 1e-8 of the "
                               "normal force");
  }

  // 2. the friction sweep on the sliding state of 1b
  fcd_stability *sa = nullptr;
  const double mu1 = 1.0;
  const int steps = quick ? 11 : 26, nev = quick ? 8 : 20;
  Chart ch;
  ch.csv = std::fopen((h.out + "/chart.csv").c_str(), "w");
  std::fprintf(ch.csv, "mu,track,re,freq_hz\n");
  fcd_status st = fcd_stability_create(h.sys, h.cs, &sa);
  if (st == FCD_OK) st = fcd_stability_set_contact_state(sa, e.status.data(), e.slip.data());
  if (st == FCD_OK) st = fcd_stability_set_sliding_data(sa, e.rn.data(), h.speed.data());
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_NEV, nev);
  // friction couples the pad's normal motion with its tangential motion: the band to
  // watch is around its first thickness mode, a half wave of compression between the
  // clamped back and the face held on the disc, c_p / (2 T)
  const double cp = std::sqrt(h.m.E * (1 - h.m.nu) / (h.m.rho * (1 + h.m.nu) * (1 - 2 * h.m.nu)));
  const double band_hz = cp / (2 * h.m.T);
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_TARGET_HZ, band_hz);
  // the model's damping (Rayleigh and the 3D sliding damping) is solved by modal
  // projection on a large model: fcd's default basis (40 modes for 20 eigenvalues)
  // missed the most unstable eigenvalue here, which 120 modes find and 360 confirm
  const int basis = 6 * nev;
  if (st == FCD_OK) st = fcd_stability_set_param(sa, FCD_STAB_PROJECTION_MODES, basis);
  auto t1 = std::chrono::steady_clock::now();
  if (st == FCD_OK) st = fcd_stability_sweep(sa, 0.0, mu1, steps, chart_row, &ch);
  std::fclose(ch.csv);
  if (st != FCD_OK) {
    std::printf("stability sweep: %s\n", fcd_system_last_error(h.sys));
    return 1;
  }
  std::printf("friction sweep: %d coefficients in [0, %.1f], %d eigenvalues nearest %.0f Hz "
              "each, %.2f s\n", steps, mu1, nev, band_hz,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
  std::vector<std::pair<double, double>> onset;
  for (auto &c : ch.crit) onset.emplace_back(c.second, ch.crit_hz[c.first]);
  std::sort(onset.begin(), onset.end());
  for (std::size_t k = 0; k < onset.size() && k < 4; k++)
    std::printf("  unstable mode %zu: from mu = %.3f at %.0f Hz\n", k + 1, onset[k].first,
                onset[k].second);
  check(ch.max_re_at_zero <= 1e-6 * 2 * M_PI * 1e3, "mu = 0: no eigenvalue with a positive real "
                                                      "part (largest " +
                                                      std::to_string(ch.max_re_at_zero) + " s^-1)");
  check(!onset.empty(), "friction makes the sliding state unstable (flutter) below mu = 1");

  // the unstable modes at the end of the sweep, one period each for ParaView
  int written = 0;
  double mu_tr = onset.empty() ? mu1 : std::min(mu1, onset[0].first + 0.1);
  st = fcd_stability_set_param(sa, FCD_STAB_MU, mu1);
  if (st == FCD_OK) st = fcd_stability_solve(sa, nullptr);
  for (fcd_index i = 0; st == FCD_OK && i < nev && written < 3; i++) {
    double re = 0, im = 0;
    if (fcd_stability_get_eigenvalue(sa, i, &re, &im) != FCD_OK || re <= 0 || im < 0) continue;
    std::vector<double> mr(n), mi(n), uf(n);
    fcd_stability_get_mode(sa, i, mr.data(), mi.data());
    std::vector<std::pair<double, std::string>> rec;
    const double amp = 0.5 * h.m.press;
    for (int k = 0; k < 16; k++) {
      const double ph = 2 * M_PI * k / 16;
      for (std::size_t j = 0; j < n; j++)
        uf[j] = e.u[j] + amp * (mr[j] * std::cos(ph) - mi[j] * std::sin(ph));
      const std::string name = "mode" + std::to_string(written + 1) + "-" + std::to_string(k) + ".vtu";
      h.write(uf, name);
      rec.emplace_back(k / 16.0, name);
    }
    h.write_pvd("mode" + std::to_string(written + 1) + ".pvd", rec);
    std::printf("  mode %d at mu = %.1f: %.1f Hz, growth %.1f s^-1 -> mode%d.pvd\n", written + 1,
                mu1, im / (2 * M_PI), re, written + 1);
    written++;
  }
  if (!quick && st == FCD_OK) {
    // a large damped model is solved by modal projection (fcd_stability.h): the most
    // unstable eigenvalue at mu = 1 with the default basis against three times as many
    // modes bounds the truncation
    double r1 = 0, i1 = 0, r3 = 0, i3 = 0;
    fcd_stability_get_eigenvalue(sa, 0, &r1, &i1);
    st = fcd_stability_set_param(sa, FCD_STAB_PROJECTION_MODES, 3 * basis);
    if (st == FCD_OK) st = fcd_stability_solve(sa, nullptr);
    if (st == FCD_OK) st = fcd_stability_get_eigenvalue(sa, 0, &r3, &i3);
    fcd_stability_set_param(sa, FCD_STAB_PROJECTION_MODES, basis);
    if (st == FCD_OK) st = fcd_stability_solve(sa, nullptr);  // the results of the sweep's basis
    std::printf("  most unstable at mu = 1 with %d projection modes: %.1f Hz, growth %.1f s^-1 "
                "(%d modes: %.1f Hz, %.1f s^-1)\n", 3 * basis, std::fabs(i3) / (2 * M_PI), r3,
                basis, std::fabs(i1) / (2 * M_PI), r1);
    // the projection converges slowly in the basis here (the sliding damping does not
    // map the basis into itself): the sweep's figures are claimed to 0.5% in frequency
    // and 5% in growth rate, what this check holds them to
    check(st == FCD_OK && std::fabs(std::fabs(i3) - std::fabs(i1)) <= 5e-3 * std::fabs(i3) &&
              std::fabs(r3 - r1) <= 0.05 * std::fabs(r3),
          "the projection's truncation: the most unstable eigenvalue's frequency within 0.5% "
          "and growth within 5% with three times the basis");
  }
  fcd_stability_set_param(sa, FCD_STAB_MU, -1);
  check(written > 0, "unstable mode shapes written with DataOut");

  // 3. the transient at mu_tr: the sliding equilibrium at that coefficient, disturbed by
  // its most unstable mode
  {
    double re0 = 0, im0 = 0;
    st = fcd_stability_set_param(sa, FCD_STAB_MU, mu_tr);
    if (st == FCD_OK) st = fcd_stability_solve(sa, nullptr);
    if (st == FCD_OK) st = fcd_stability_get_eigenvalue(sa, 0, &re0, &im0);
    std::vector<double> mr(n), mi(n);
    if (st == FCD_OK) st = fcd_stability_get_mode(sa, 0, mr.data(), mi.data());
    fcd_stability_set_param(sa, FCD_STAB_MU, -1);
    Equilibrium et;
    h.set_friction(mu_tr);
    if (st != FCD_OK || !sliding_equilibrium(h, eq, et)) {
      std::printf("transient: %s\n", fcd_system_last_error(h.sys));
      return 1;
    }
    const double f_hz = std::fabs(im0) / (2 * M_PI), dt = 1.0 / (40.0 * std::max(f_hz, 1.0));
    // long enough for the linear growth to show: 5 periods (quick) or 50
    const long nsteps = quick ? 200 : 2000;
    std::vector<double> u0 = et.u, v0(n, 0.0);
    // the real part of the eigen-solution a e^(lambda t) v at t = 0, displacement and
    // velocity, so that only the unstable pair is excited
    for (std::size_t j = 0; j < n; j++) {
      u0[j] += 0.01 * h.m.press * mr[j];
      v0[j] = 0.01 * h.m.press * (re0 * mr[j] - im0 * mi[j]);
    }
    fcd_integrator *it = nullptr;
    st = fcd_integrator_create(h.sys, h.cs, FCD_SCHEME_MODIFIED_THETA, &it);
    if (st == FCD_OK) st = fcd_integrator_set_param(it, FCD_PARAM_STEP, dt);
    if (st == FCD_OK) st = fcd_integrator_set_state(it, 0.0, u0.data(), v0.data());
    Watch w;
    w.per = 40;
    w.h = &h;
    w.it = it;
    w.every = nsteps / 40;
    w.ue = &et.u;
    // the monitored dof: the largest component of the mode
    for (std::size_t j = 0; j < n; j++)
      if (std::fabs(mr[j]) > std::fabs(mr[static_cast<std::size_t>(w.mon)])) w.mon = static_cast<fcd_index>(j);
    w.csv = std::fopen((h.out + "/transient.csv").c_str(), "w");
    std::fprintf(w.csv, "t,u_monitor,energy,friction_force,open,stick,slip\n");
    if (st == FCD_OK) st = fcd_integrator_set_observer(it, observe, &w);
    auto t2 = std::chrono::steady_clock::now();
    if (st == FCD_OK) st = fcd_integrator_advance(it, nsteps * dt * (1 - 1e-9));
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count();
    std::fclose(w.csv);
    if (st != FCD_OK) {
      std::printf("transient: %s\n", fcd_system_last_error(h.sys));
      return 1;
    }
    h.write_pvd("transient.pvd", w.rec);
    // linear theory: while every contact keeps its status (the sliding state's open
    // nodes open, the others slipping), the envelope grows by exp(Re(lambda) t) from the
    // first period to the last such one (the scheme's own error aside)
    const long np = w.linear_periods < 0 ? static_cast<long>(w.env.size()) : w.linear_periods;
    const double t_lin = (np - 1) * w.per * dt, linear = std::exp(re0 * t_lin);
    const double grown = np >= 2 && w.env[0] > 0 ? w.env[static_cast<std::size_t>(np - 1)] / w.env[0] : 0;
    std::printf("transient at mu = %.3f (most unstable mode %.1f Hz, growth %.1f s^-1): %ld "
                "steps of %.3g s in %.2f s; %d nodes open at the start, at most %d; while "
                "no contact changes status (%ld periods) the envelope of the monitored dof "
                "grows x %.3f (linear theory x %.3f); largest excursion %.3e m\n", mu_tr, f_hz,
                re0, w.steps, dt, secs, w.open0, w.max_open, np, grown, linear,
                *std::max_element(w.env.begin(), w.env.end()));
    // only the dense eigen-solve (the coarse model) gives the exact eigenvector; the
    // large model's comes from the modal projection and also excites its neighbours
    // (beats in the envelope), so its growth is reported, not checked
    if (!quick)
      std::printf("  (growth reported, not checked: the projected mode excites its "
                  "neighbours)\n");
    else if (re0 * t_lin > 0.2)
      check(grown > 1 && std::fabs(std::log(grown) / std::log(linear) - 1) < 0.1,
            "transient: the disturbance grows as the unstable eigenvalue says (log of the "
            "growth within 10%)");
    else
      check(false, "transient: too few periods before a contact changes status to compare "
                   "the growth with the eigenvalue");
    check(w.steps >= nsteps - 1, "transient: every step taken");
    check(w.rec.size() >= 10, "transient frames written with DataOut (transient.pvd)");
    fcd_integrator_destroy(it);
  }
  {
    // the pictures of docs/examples/dealii-host.md: `gnuplot plots.gp` in the output
    std::ofstream gp(h.out + "/plots.gp");
    gp << "set terminal pngcairo size 1400,480 font ',11'\nset output 'dealii-host.png'\n"
          "set datafile separator ','\nset grid\nunset key\n"
          "set multiplot layout 1,3 title 'deal.II pad on a rotating disc (" << n << " dofs)'\n"
          "set xlabel 'friction coefficient mu'\nset ylabel 'Re(lambda) (s^{-1})'\n"
          "plot 'chart.csv' u 1:3 every ::1 w p pt 7 ps 0.6, 0 w l lc rgb 'black'\n"
          "set ylabel 'frequency (Hz) (red: unstable)'\n"
          "plot 'chart.csv' u 1:($3 > 0 ? 1/0 : $4) every ::1 w p pt 7 ps 0.6 lc rgb '#1f77b4', "
          "'' u 1:($3 > 0 ? $4 : 1/0) every ::1 w p pt 7 ps 0.9 lc rgb '#d62728'\n"
          "set xlabel 't (ms)'\nset ylabel 'monitored displacement (um)'\n"
          "plot 'transient.csv' u ($1*1e3):($2*1e6) every ::1 w l lw 1\n"
          "unset multiplot\n";
  }
  fcd_stability_destroy(sa);
  fcd_equilibrium_destroy(eq);
  fcd_contact_set_destroy(h.cs);
  fcd_system_destroy(h.sys);
  std::printf("checks: %d passed, %d failed\n", n_checks - n_failed, n_failed);
  return n_failed ? 1 : 0;
}
