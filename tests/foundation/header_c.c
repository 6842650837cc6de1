/* The public headers compile on their own as strict C (C99 and C11, -pedantic). */
#include <fcd/fcd.h>

int main(void) {
  fcd_system *sys = 0;
  fcd_status st = fcd_system_create(3, &sys);
  fcd_system_destroy(sys);
  return st == FCD_OK && FCD_VERSION_NUMBER == fcd_version_number() ? 0 : 1;
}
