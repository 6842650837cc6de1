/* One matrix file read by fcd_matrix_file_read (the format told from the content), the
 * best of --reps reads: prints seconds, the file's MB/s, the entries, the triplet storage
 * the reader returns and the peak resident memory the first read added (the peak
 * before and after it; the process has loaded nothing large before). With --mesh
 * DIM the file is a mesh (fcd_mesh_read, a system with a dof map of every label). */
#include <fcd/fcd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the process's peak resident memory, VmHWM of /proc/self/status: getrusage's maxrss
 * starts from the parent's resident size after a fork (a Python driver holding the
 * generated matrix), VmHWM from this program's own address space */
static long maxrss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  if (f) fclose(f);
  if (kb < 0) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    kb = r.ru_maxrss;
  }
  return kb;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: import_read FILE [--reps N]\n");
    return 2;
  }
  const char *path = argv[1];
  int reps = 3;
  for (int i = 2; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--reps")) reps = atoi(argv[++i]);
  struct stat sb;
  if (stat(path, &sb) != 0) {
    perror(path);
    return 1;
  }
  double best = 1e300;
  long before = maxrss_kb(), added = 0;
  fcd_matrix_file_info in = {.struct_size = sizeof in};
  for (int r = 0; r < reps; r++) {
    fcd_matrix_file *m = NULL;
    char err[512];
    double t0 = now();
    fcd_status st = fcd_matrix_file_read(path, FCD_MATRIX_FORMAT_AUTO, &m, err, sizeof err);
    double t = now() - t0;
    if (st != FCD_OK) {
      fprintf(stderr, "import_read: %s\n", err);
      return 1;
    }
    if (r == 0) added = maxrss_kb() - before;
    fcd_matrix_file_get_info(m, &in);
    fcd_matrix_file_destroy(m);
    if (t < best) best = t;
  }
  /* what the reader returns: two 64-bit indices and a double per entry, and two dof
   * bytes for labelled formats */
  double storage = (double)in.nnz * (in.labelled ? 26.0 : 24.0);
  printf("file=%s format=%s bytes=%lld seconds=%.4f mb_per_s=%.1f entries=%lld "
         "storage_mb=%.1f peak_added_mb=%.1f peak_over_storage=%.2f\n",
         path, fcd_matrix_format_name(in.format), (long long)sb.st_size, best,
         (double)sb.st_size / best / 1e6, (long long)in.nnz, storage / 1e6,
         (double)added / 1024.0, (double)added * 1024.0 / storage);
  return 0;
}
