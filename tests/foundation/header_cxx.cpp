// The public headers compile as C++ and link through extern "C".
#include <fcd/fcd.h>

#include <cstring>

int main() {
  fcd_system *sys = nullptr;
  if (fcd_system_create(2, &sys) != FCD_OK) return 1;
  const fcd_index r[1] = {0}, c[1] = {1};
  const fcd_real v[1] = {1.0};
  fcd_status st = fcd_system_set_matrix_coo(sys, FCD_STIFFNESS, 1, r, c, v, FCD_COO_FULL);
  fcd_system_destroy(sys);
  return st == FCD_OK && std::strcmp(fcd_version_string(), FCD_VERSION_STRING) == 0 ? 0 : 1;
}
