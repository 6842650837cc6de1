/* Output files of the fcd program that never lose the previous one, and plots that never
 * put a user's text into a gnuplot script. */
#ifndef FCD_TOOLS_OUTFILE_H
#define FCD_TOOLS_OUTFILE_H

#include <stdio.h>

/* A file written beside its destination (PATH.tmp-XXXXXX, same directory, so the final
 * rename is atomic) and renamed over PATH only by out_commit(): a run that fails leaves
 * the previous PATH untouched and no partial file behind. */
typedef struct {
  FILE *fp;          /* NULL for out_reserve(): a library writes tmp by name */
  char tmp[4200];
  const char *path;
} out_file;

/* opens the temporary file; NULL with a message on stderr */
FILE *out_open(out_file *o, const char *path);
/* creates the temporary file empty for a writer that takes a path; 0, or -1 (message) */
int out_reserve(out_file *o, const char *path);
/* closes (checking every write) and renames over PATH; 0, or -1 with a message, the
 * temporary file removed and PATH untouched */
int out_commit(out_file *o);
/* closes and removes the temporary file; PATH untouched */
void out_discard(out_file *o);

/* creates directory DIR and its missing parents (like mkdir -p); 0, or -1 with a message
 * on stderr naming the component that could not be made */
int out_mkdir(const char *dir);

/* 1 when an executable gnuplot is on PATH */
int plot_available(void);

/* Runs gnuplot on SCRIPT in a fresh directory created beside PNG: inputs[k] (any path)
 * is linked there as names[k], the script refers to files by those fixed names only and
 * writes 'plot.png', which then replaces PNG (atomically). No path of the user's ever
 * enters the script, so no quote in a file name can run a command. 0, or -1 with the
 * reason in err. */
int plot_run(const char *png, const char *script, int ninputs, const char *const *inputs,
             const char *const *names, char *err, size_t errcap);

#endif
