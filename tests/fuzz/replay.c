/* Runs a fuzz harness over files and directories of inputs (the committed corpus and
 * any crash reproducers), without libFuzzer: the regression test of every build. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  size_t got = n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
  fclose(f);
  LLVMFuzzerTestOneInput(buf, got);
  free(buf);
  return 1;
}

int main(int argc, char **argv) {
  int count = 0;
  for (int a = 1; a < argc; a++) {
    struct stat st;
    if (stat(argv[a], &st) != 0) {
      fprintf(stderr, "replay: cannot read %s\n", argv[a]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      count += run_file(argv[a]);
      continue;
    }
    DIR *d = opendir(argv[a]);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char p[4096];
      snprintf(p, sizeof p, "%s/%s", argv[a], e->d_name);
      count += run_file(p);
    }
    if (d) closedir(d);
  }
  printf("replayed %d inputs\n", count);
  return count > 0 ? 0 : 1;
}
