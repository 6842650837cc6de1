#define _XOPEN_SOURCE 700 /* realpath, mkdtemp, symlink, fchmod */
/* See outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int make_tmp(out_file *o, const char *path) {
  o->fp = NULL;
  o->path = path;
  if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof o->tmp) {
    fprintf(stderr, "fcd: output path too long: '%.80s...'\n", path);
    return -1;
  }
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    fprintf(stderr, "fcd: cannot write '%s': %s\n", path, strerror(errno));
    return -1;
  }
  /* mkstemp makes 0600; an output file gets what a plain fopen would (0666 & ~umask) */
  mode_t um = umask(0);
  umask(um);
  if (fchmod(fd, 0666 & ~um) != 0) { /* not fatal: the file stays private */
  }
  return fd;
}

FILE *out_open(out_file *o, const char *path) {
  int fd = make_tmp(o, path);
  if (fd < 0) return NULL;
  o->fp = fdopen(fd, "w");
  if (!o->fp) {
    fprintf(stderr, "fcd: cannot write '%s': %s\n", path, strerror(errno));
    close(fd);
    unlink(o->tmp);
  }
  return o->fp;
}

int out_reserve(out_file *o, const char *path) {
  int fd = make_tmp(o, path);
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

int out_commit(out_file *o) {
  int bad = 0;
  if (o->fp) {
    bad = ferror(o->fp) != 0;
    bad |= fclose(o->fp) != 0;
    o->fp = NULL;
  }
  if (bad) {
    fprintf(stderr, "fcd: write error on '%s'; the previous file, if any, is kept\n", o->path);
    unlink(o->tmp);
    return -1;
  }
  if (rename(o->tmp, o->path) != 0) {
    fprintf(stderr, "fcd: cannot replace '%s': %s\n", o->path, strerror(errno));
    unlink(o->tmp);
    return -1;
  }
  return 0;
}

void out_discard(out_file *o) {
  if (o->fp) fclose(o->fp);
  o->fp = NULL;
  unlink(o->tmp);
}

int out_mkdir(const char *dir) {
  char buf[4096];
  size_t n = strlen(dir);
  if (n == 0 || n >= sizeof buf) {
    fprintf(stderr, "fcd: cannot create '%s': %s\n", dir, n ? "name too long" : "empty name");
    return -1;
  }
  memcpy(buf, dir, n + 1);
  /* each parent in turn; an existing one (or one made by a concurrent run) is fine, so
   * only the final stat decides */
  for (size_t k = 1; k <= n; k++) {
    if (buf[k] != '/' && buf[k] != '\0') continue;
    char c = buf[k];
    buf[k] = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "fcd: cannot create '%s': %s\n", buf, strerror(errno));
      return -1;
    }
    buf[k] = c;
  }
  struct stat st;
  if (stat(dir, &st) != 0) {
    fprintf(stderr, "fcd: cannot create '%s': %s\n", dir, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "fcd: cannot create '%s': a file of that name exists\n", dir);
    return -1;
  }
  return 0;
}

int plot_available(void) {
  const char *path = getenv("PATH");
  if (!path) return 0;
  const char *p = path;
  while (*p) {
    const char *e = strchr(p, ':');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char cand[PATH_MAX];
    if (len > 0 && len + 9 < sizeof cand) {
      memcpy(cand, p, len);
      memcpy(cand + len, "/gnuplot", 9);
      if (access(cand, X_OK) == 0) return 1;
    }
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

/* dirname of path into buf ("." when none) */
static void dir_of(const char *path, char *buf, size_t cap) {
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(buf, cap, ".");
  else if (slash == path) snprintf(buf, cap, "/");
  else snprintf(buf, cap, "%.*s", (int)(slash - path), path);
}

int plot_run(const char *png, const char *script, int ninputs, const char *const *inputs,
             const char *const *names, char *err, size_t errcap) {
  char dir[PATH_MAX], work[PATH_MAX + 32];
  dir_of(png, dir, sizeof dir);
  snprintf(work, sizeof work, "%s/.fcd-plot-XXXXXX", dir);
  if (!mkdtemp(work)) {
    snprintf(err, errcap, "cannot create a work directory beside '%s': %s", png, strerror(errno));
    return -1;
  }
  int rc = -1;
  char links[8][PATH_MAX + 64];
  int nl = 0;
  for (int k = 0; k < ninputs && k < 8; k++) {
    char abs[PATH_MAX];
    if (!realpath(inputs[k], abs)) {
      snprintf(err, errcap, "cannot resolve '%s': %s", inputs[k], strerror(errno));
      goto cleanup;
    }
    snprintf(links[nl], sizeof links[nl], "%s/%s", work, names[k]);
    if (symlink(abs, links[nl]) != 0) {
      snprintf(err, errcap, "cannot link '%s': %s", inputs[k], strerror(errno));
      goto cleanup;
    }
    nl++;
  }
  int pipefd[2];
  if (pipe(pipefd) != 0) {
    snprintf(err, errcap, "pipe: %s", strerror(errno));
    goto cleanup;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    snprintf(err, errcap, "fork: %s", strerror(errno));
    goto cleanup;
  }
  if (pid == 0) {
    /* the child: script on stdin, nothing on stdout or stderr, in the work directory */
    int null = open("/dev/null", O_RDWR);
    dup2(pipefd[0], 0);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    close(pipefd[0]);
    close(pipefd[1]);
    if (chdir(work) != 0) _exit(126);
    execlp("gnuplot", "gnuplot", (char *)NULL);
    _exit(127);
  }
  close(pipefd[0]);
  FILE *gp = fdopen(pipefd[1], "w");
  if (gp) {
    fputs(script, gp);
    fclose(gp);
  } else {
    close(pipefd[1]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  char out[PATH_MAX + 64];
  snprintf(out, sizeof out, "%s/plot.png", work);
  struct stat sb;
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
    snprintf(err, errcap, "gnuplot could not be run");
  } else if (WEXITSTATUS(status) != 0) {
    snprintf(err, errcap, "gnuplot failed (exit status %d)", WEXITSTATUS(status));
  } else if (stat(out, &sb) != 0 || sb.st_size == 0) {
    snprintf(err, errcap, "gnuplot wrote no image");
  } else if (rename(out, png) != 0) {
    snprintf(err, errcap, "cannot write '%s': %s", png, strerror(errno));
  } else {
    rc = 0;
  }
  unlink(out);
cleanup:
  for (int k = 0; k < nl; k++) unlink(links[k]);
  rmdir(work);
  return rc;
}
